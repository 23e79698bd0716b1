package group

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/agree"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
)

// rankGroup is a group of replicas on the worlds of a commtest.Twin,
// recording what each applies.
type rankGroup struct {
	twin     *commtest.Twin
	replicas []*Replica
	cancels  []context.CancelFunc
	mu       sync.Mutex
	applied  [][]agree.Entry
	wg       sync.WaitGroup
}

func newRankGroup(t *testing.T, n int, mode Mode) *rankGroup {
	g := &rankGroup{twin: commtest.NewTwin(n), applied: make([][]agree.Entry, n)}
	t.Cleanup(g.wg.Wait) // runs last, after every cancel below
	for id := range n {
		w, err := g.twin.World(id, comm.Config{})
		if err != nil {
			t.Fatal(err)
		}
		net, err := NewRanks(w, RanksConfig{Replicas: n, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		r, err := New(Config{Agree: agree.Config{ID: id, Replicas: n, Seed: 1}, Tick: time.Millisecond,
			Apply: func(e agree.Entry) { g.record(id, e) }}, net)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		g.replicas, g.cancels = append(g.replicas, r), append(g.cancels, cancel)
		g.wg.Add(2)
		go func() { defer g.wg.Done(); _ = r.Run(ctx) }()
		go func() { defer g.wg.Done(); _ = net.Serve(ctx, r.Deliver) }()
		t.Cleanup(func() { cancel(); _ = w.Close() })
	}
	return g
}

func (g *rankGroup) record(id int, e agree.Entry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.applied[id] = append(g.applied[id], e)
}

func (g *rankGroup) kill(id int) {
	g.cancels[id]()
	g.twin.Kill(id)
}

// waitAll waits until every replica in ids applied every value of vs,
// then checks that their sequences agree slot by slot.
func (g *rankGroup) waitAll(t *testing.T, ids []int, vs []string) {
	deadline := time.Now().Add(20 * time.Second)
	for !g.haveAll(ids, vs) {
		if time.Now().After(deadline) {
			t.Fatalf("replicas %v did not apply all %d values", ids, len(vs))
		}
		time.Sleep(5 * time.Millisecond)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, a := range ids {
		for _, b := range ids {
			x, y := g.applied[a], g.applied[b]
			for i := range min(len(x), len(y)) {
				if x[i].Slot != uint64(i)+1 || !bytes.Equal(x[i].Value, y[i].Value) {
					t.Fatalf("replicas %d and %d differ at slot %d: %q / %q", a, b, i+1, x[i].Value, y[i].Value)
				}
			}
		}
	}
}

func (g *rankGroup) haveAll(ids []int, vs []string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, id := range ids {
		have := map[string]bool{}
		for _, e := range g.applied[id] {
			have[string(e.Value)] = true
		}
		for _, v := range vs {
			if !have[v] {
				return false
			}
		}
	}
	return true
}

func (g *rankGroup) propose(t *testing.T, id int, v string) {
	if err := g.replicas[id].Propose(context.Background(), []byte(v)); err != nil {
		t.Fatal(err)
	}
}

func TestRanks(t *testing.T) {
	for _, mode := range []Mode{Tree, Sequential} {
		for _, n := range []int{1, 3, 5} {
			t.Run(fmt.Sprintf("mode=%v/replicas=%d", mode, n), func(t *testing.T) {
				g := newRankGroup(t, n, mode)
				var vs []string
				for i := range 50 {
					v := fmt.Sprintf("v%d", i)
					vs = append(vs, v)
					g.propose(t, i%n, v)
				}
				g.waitAll(t, allIDs(n), vs)
			})
		}
	}
}

// TestRanksFailover kills the leader, the acceptor or another replica
// of five in the middle of a stream of proposals: the survivors decide
// everything proposed at them.
func TestRanksFailover(t *testing.T) {
	for _, victim := range []int{0, 1, 3} {
		for _, mode := range []Mode{Tree, Sequential} {
			t.Run(fmt.Sprintf("kill=%d/mode=%v", victim, mode), func(t *testing.T) {
				g := newRankGroup(t, 5, mode)
				var vs []string
				live := []int{}
				for id := range 5 {
					if id != victim {
						live = append(live, id)
					}
				}
				for i := range 60 {
					if i == 20 {
						g.kill(victim)
					}
					id := live[i%len(live)]
					v := fmt.Sprintf("v%d", i)
					vs = append(vs, v)
					g.propose(t, id, v)
					time.Sleep(time.Millisecond)
				}
				g.waitAll(t, live, vs)
			})
		}
	}
}

func allIDs(n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	return ids
}

// TestServeReusesItsBuffer checks that Serve hands deliver each frame
// whole and alone, long ones after short ones and short after long, though
// it reads them into one buffer (and one longer than it keeps into its
// own): every frame delivered equals the one sent.
func TestServeReusesItsBuffer(t *testing.T) {
	twin := commtest.NewTwin(2)
	ws := make([]*comm.World, 2)
	for i := range ws {
		w, err := twin.World(i, comm.Config{})
		if err != nil {
			t.Fatal(err)
		}
		ws[i] = w
		t.Cleanup(func() { _ = w.Close() })
	}
	net, err := NewRanks(ws[1], RanksConfig{Replicas: 2, Mode: Sequential})
	if err != nil {
		t.Fatal(err)
	}
	var sent [][]byte
	for _, n := range []int{10, 3000, 5, 700, 700, 1, maxKeptFrame + 1, 4096, 2} {
		sent = append(sent, bytes.Repeat([]byte{byte(n)}, n))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got [][]byte
	done := make(chan error, 1)
	go func() {
		done <- net.Serve(ctx, func(f []byte) error {
			got = append(got, bytes.Clone(f))
			if len(got) == len(sent) {
				cancel()
			}
			return nil
		})
	}()
	to0, err := NewRanks(ws[0], RanksConfig{Replicas: 2, Mode: Sequential})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sent {
		if err := to0.Send(ctx, 1, f); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if len(got) != len(sent) {
		t.Fatalf("%d frames delivered, want %d", len(got), len(sent))
	}
	for i := range sent {
		if !bytes.Equal(got[i], sent[i]) {
			t.Errorf("frame %d: %d bytes delivered, want %d bytes of %d", i, len(got[i]), len(sent[i]), byte(len(sent[i])))
		}
	}
}
