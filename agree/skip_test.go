package agree

import "testing"

// TestSkippedOwnValueProposedAgain: a replica learns its own value in
// slot 2 while it misses slot 1, then catches up from a snapshot that
// covers both. The value was never applied here, so the replica must
// propose it again (its client waits for it to be applied here).
func TestSkippedOwnValueProposedAgain(t *testing.T) {
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
	must(Message{Type: Accept, From: acc, To: 2, Epoch: st.Epoch, Slot: 2, Value: []byte("mine")})
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
