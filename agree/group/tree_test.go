package group

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/agree"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/tree"
)

// TestRanksBroadcastOnce broadcasts one frame from replica 1 of 8 down
// the tree (which has relays) and one by one: every other replica gets
// it exactly once, also when a relay of the tree was killed (its
// children are then reached directly).
func TestRanksBroadcastOnce(t *testing.T) {
	for _, tc := range []struct {
		mode Mode
		kill int
	}{{Tree, -1}, {Sequential, -1}, {Tree, 0}, {Tree, 6}} {
		const n = 8
		twin := commtest.NewTwin(n)
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		got := map[int]int{}
		var nets []*Ranks
		var wg sync.WaitGroup
		for r := range n {
			w, err := twin.World(r, comm.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			net, err := NewRanks(w, RanksConfig{Replicas: n, Mode: tc.mode})
			if err != nil {
				t.Fatal(err)
			}
			nets = append(nets, net)
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = net.Serve(ctx, func([]byte) error { mu.Lock(); got[r]++; mu.Unlock(); return nil })
			}()
		}
		tr, err := nets[1].tree(1)
		if err != nil {
			t.Fatal(err)
		}
		if tc.mode == Tree && tr.Depth() < 2 {
			t.Fatalf("tree %v has no relay: the test would not cover relaying", tr.Children)
		}
		if tc.kill >= 0 {
			twin.Kill(tc.kill)
		}
		f, _ := encodeFrame(nil, frameTree, 1, []agree.Message{{Type: agree.Heartbeat, From: 1, To: agree.All, Epoch: 1}})
		_ = nets[1].Broadcast(ctx, f)
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			ok := len(got) == n-1-min(tc.kill+1, 1)
			mu.Unlock()
			if ok || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond) // time for a duplicate to show
		cancel()
		wg.Wait()
		for r := range n {
			want := 1
			if r == 1 || r == tc.kill {
				want = 0
			}
			if got[r] != want {
				t.Errorf("mode %v, killed %d: replica %d got the frame %d times, want %d", tc.mode, tc.kill, r, got[r], want)
			}
		}
	}
}

// TestTeamTopology builds the trees of a team of 14: the adaptive tree
// by default, the binary one when asked (its root sends two messages),
// the sequential one in Mode Sequential whatever the topology; each
// reaches every replica once from every root.
func TestTeamTopology(t *testing.T) {
	for _, tc := range []struct {
		mode     Mode
		topology tree.Topology
		fanout   func(int) bool
	}{
		{Tree, 0, func(k int) bool { return k > 2 && k < 13 }},
		{Tree, tree.Binary, func(k int) bool { return k == 2 }},
		{Sequential, tree.Binary, func(k int) bool { return k == 13 }},
	} {
		team, err := NewTeam(TeamConfig{Replicas: 14, Mode: tc.mode, Topology: tc.topology})
		if err != nil {
			t.Fatal(err)
		}
		if k := len(team.kids[1][1]); !tc.fanout(k) {
			t.Errorf("mode %v, topology %v: the root sends %d messages", tc.mode, tc.topology, k)
		}
		for root := range 14 {
			seen := map[int]int{}
			var walk func(int)
			walk = func(id int) {
				for _, c := range team.kids[root][id] {
					seen[c]++
					walk(c)
				}
			}
			walk(root)
			if len(seen) != 13 || seen[root] != 0 {
				t.Errorf("mode %v, topology %v, root %d: tree reaches %v", tc.mode, tc.topology, root, seen)
			}
			for id, n := range seen {
				if n != 1 {
					t.Errorf("root %d: replica %d reached %d times", root, id, n)
				}
			}
		}
	}
}
