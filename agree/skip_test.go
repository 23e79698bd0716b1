package agree

import (
	"fmt"
	"testing"
)

// TestSkippedOwnValueProposedAgain: a replica learns its own value in
// slot 2 while it misses slot 1, then catches up from a snapshot that
// covers both. The value was never applied here, so the replica must
// propose it again (its client waits for it to be applied here).
// The same holds for a value applied in the replica's last steps whose
// Ready the driver had not taken yet when the snapshot came: install
// supersedes Ready.Decided.
func TestSkippedOwnValueProposedAgain(t *testing.T) {
	for _, handedOut := range []bool{false, true} {
		t.Run(fmt.Sprintf("applied=%v", handedOut), func(t *testing.T) { skippedOwn(t, handedOut) })
	}
}

func skippedOwn(t *testing.T, handedOut bool) {
	n, err := New(Config{ID: 2, Replicas: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Propose([]byte("mine")); err != nil {
		t.Fatal(err)
	}
	n.Ready()
	st := n.Status()
	acc := st.Acceptor
	must := func(m Message) {
		t.Helper()
		if err := n.Step(m); err != nil {
			t.Fatal(err)
		}
	}
	slot := uint64(2) // missing slot 1: learned, not applied
	if handedOut {
		slot = 1 // applied, but superseded before the driver took its Ready
	}
	must(Message{Type: Accept, From: acc, To: 2, Epoch: st.Epoch, Slot: slot, Value: []byte("mine")})
	must(Message{Type: Entries, From: acc, To: 2, Epoch: st.Epoch, Snap: &Snapshot{Index: 2, Data: []byte("s")}})
	for _, e := range n.Ready().Decided {
		if string(e.Value) == "mine" {
			return // applied here after all
		}
	}
	for range 2 * n.cfg.RetryTicks {
		n.Tick()
		for _, m := range n.Ready().Messages {
			if m.Type == Forward && string(m.Value) == "mine" {
				return
			}
		}
	}
	t.Fatalf("replica 2's value, decided in a slot its snapshot skipped, is neither applied nor proposed again: %+v", n.Status())
}

// TestLossyLaggardAppliesItsOwn: replica 2 proposes every value and
// loses a third of the accepts sent to it while the others compact
// every 4 slots, so it catches up from snapshots that skip slots it had
// learned. Every value it proposed must still be handed out at replica
// 2 itself, in some slot: its clients wait for that.
func TestLossyLaggardAppliesItsOwn(t *testing.T) {
	s := newSim(t, 3, 7)
	s.compact = 4
	s.handed = []map[string]bool{{}, {}, {}}
	var vs []string
	for i := range 60 {
		vs = append(vs, fmt.Sprintf("v%d", i))
		s.propose(2, vs[i])
		for len(s.pool) > 0 {
			i := s.rnd.IntN(len(s.pool))
			if m := s.pool[i]; m.To == 2 && m.Type == Accept && s.rnd.IntN(3) == 0 {
				s.pool = append(s.pool[:i], s.pool[i+1:]...)
				continue
			}
			s.deliver(i)
		}
		for id := range s.nodes {
			s.tick(id)
		}
	}
	handedAll := func() bool {
		for _, v := range vs {
			if !s.handed[2][v] {
				return false
			}
		}
		return true
	}
	if !s.settle(200, handedAll) {
		var missing []string
		for _, v := range vs {
			if !s.handed[2][v] {
				missing = append(missing, v)
			}
		}
		t.Fatalf("replica 2 never applied its own %v (%+v)", missing, s.nodes[2].Status())
	}
}
