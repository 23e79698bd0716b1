package group

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/agree"
)

// listApp is a replica's application: the list of values it applied,
// whose snapshot is the list joined. Apply, Snapshot and Restore run on
// the replica's goroutine; the test reads under mu.
type listApp struct {
	mu   sync.Mutex
	vals []string
}

func (a *listApp) apply(e agree.Entry) {
	if e.Value != nil {
		a.mu.Lock()
		a.vals = append(a.vals, string(e.Value))
		a.mu.Unlock()
	}
}

func (a *listApp) snapshot() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return []byte(strings.Join(a.vals, ","))
}

func (a *listApp) restore(s agree.Snapshot) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.vals = nil
	if len(s.Data) > 0 {
		a.vals = strings.Split(string(s.Data), ",")
	}
}

func (a *listApp) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.vals...)
}

// startListTeam runs n replicas of listApp on a team, compacting every
// compact slots.
func startListTeam(t *testing.T, n int, compact uint64) ([]*Replica, []*listApp) {
	team, err := NewTeam(TeamConfig{Replicas: n, Mode: Tree})
	if err != nil {
		t.Fatal(err)
	}
	var rs []*Replica
	var apps []*listApp
	for id := range n {
		a := &listApp{}
		r, err := New(Config{Agree: agree.Config{ID: id, Replicas: n}, Tick: time.Millisecond, Apply: a.apply,
			CompactEvery: compact, Snapshot: a.snapshot, Restore: a.restore}, team.Net(id))
		if err != nil {
			t.Fatal(err)
		}
		rs, apps = append(rs, r), append(apps, a)
	}
	team.Attach(rs)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, r := range rs {
		wg.Add(1)
		go func() { defer wg.Done(); _ = r.Run(ctx) }()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	return rs, apps
}

func status(t *testing.T, r *Replica) agree.Status {
	ch := make(chan agree.Status, 1)
	if err := r.Call(context.Background(), func(*agree.Node) { ch <- r.Status() }); err != nil {
		t.Fatal(err)
	}
	return <-ch
}

// waitApplied waits until every replica applied every value of vs.
func waitApplied(t *testing.T, apps []*listApp, vs []string) {
	deadline := time.Now().Add(20 * time.Second)
	for id := 0; id < len(apps); {
		have := map[string]bool{}
		for _, v := range apps[id].list() {
			have[v] = true
		}
		missing := 0
		for _, v := range vs {
			if !have[v] {
				missing++
			}
		}
		if missing == 0 {
			id++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica %d misses %d of %d values", id, missing, len(vs))
		}
		time.Sleep(time.Millisecond)
	}
}

// TestTeamRestart restarts the acceptor's or another replica's state
// machine in a running team, with and without compaction, between two
// batches of proposals: it recovers from the others, and its applied
// list ends equal to theirs, slot by slot.
func TestTeamRestart(t *testing.T) {
	for _, tc := range []struct {
		victim  int
		compact uint64
	}{{1, 0}, {1, 8}, {2, 8}} {
		t.Run(fmt.Sprintf("restart=%d/compact=%d", tc.victim, tc.compact), func(t *testing.T) {
			rs, apps := startListTeam(t, 3, tc.compact)
			ctx := context.Background()
			var vs []string
			propose := func(prefix string, k int) {
				for i := range k {
					v := fmt.Sprint(prefix, i)
					vs = append(vs, v)
					if err := rs[i%3].Propose(ctx, []byte(v)); err != nil {
						t.Fatal(err)
					}
				}
			}
			propose("a", 100)
			waitApplied(t, apps, vs)
			v := apps[tc.victim]
			if err := rs[tc.victim].Restart(ctx, func() { v.restore(agree.Snapshot{}) }); err != nil {
				t.Fatal(err)
			}
			propose("b", 100)
			waitApplied(t, apps, vs)
			for status(t, rs[tc.victim]).Recovering {
				time.Sleep(time.Millisecond)
			}
			want, got := apps[0].list(), apps[tc.victim].list()
			n := min(len(want), len(got))
			if fmt.Sprint(got[:n]) != fmt.Sprint(want[:n]) {
				t.Fatalf("restarted replica applied %v\nreplica 0 applied %v", got, want)
			}
			if st := status(t, rs[0]); tc.compact > 0 && (st.Compacted == 0 || st.Held > 4*int(tc.compact)+64) {
				t.Errorf("replica 0 with compaction every %d: %+v", tc.compact, st)
			}
		})
	}
}
