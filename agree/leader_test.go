package agree

import (
	"testing"
)

// TestForwardedTwiceOneSlot: a value forwarded again while in flight
// keeps its slot; another value whose key collides with it (forced here)
// still gets a slot of its own; once decided and compacted, the leader
// keeps no entry for either.
func TestForwardedTwiceOneSlot(t *testing.T) {
	n, err := New(Config{ID: 0, Replicas: 3})
	if err != nil {
		t.Fatal(err)
	}
	forward := func(v string) []Message {
		t.Helper()
		if err := n.Step(Message{Type: Forward, From: 1, To: 0, Epoch: 1, Value: []byte(v)}); err != nil {
			t.Fatal(err)
		}
		return n.Ready().Messages
	}
	if ms := forward("v"); len(ms) != 1 || ms[0].Type != Propose || ms[0].Slot != 1 {
		t.Fatalf("first forward sent %v, want a Propose of slot 1", ms)
	}
	if ms := forward("v"); len(ms) != 0 {
		t.Fatalf("a forward of a value in flight sent %v, want nothing", ms)
	}
	wKey := valueKey([]byte("w"))
	n.lead.inflight.put(wKey, 1) // w's key taken by v, as a collision would
	if ms := forward("w"); len(ms) != 1 || ms[0].Slot != 2 || string(ms[0].Value) != "w" {
		t.Fatalf("a value whose key collides sent %v, want a Propose of w in slot 2", ms)
	}
	if ms := forward("v"); len(ms) != 0 {
		t.Fatalf("v forwarded again after the collision sent %v, want nothing", ms)
	}
	for s, v := range []string{"v", "w"} {
		if err := n.Step(Message{Type: Accept, From: 1, To: All, Epoch: 1, Slot: uint64(s + 1), Value: []byte(v)}); err != nil {
			t.Fatal(err)
		}
	}
	n.Ready()
	if err := n.Compact(2, nil); err != nil {
		t.Fatal(err)
	}
	n.lead.inflight.del(wKey) // a real collision is v's own entry, removed with it
	if n.lead.inflight.size() != 0 || n.lead.proposed.size() != 0 {
		t.Errorf("after the decisions: %d keys and %d proposals held, want none", n.lead.inflight.size(), n.lead.proposed.size())
	}
}

// TestValueKeyDistinct: keys of nearby values differ (the store's
// values differ in a few bytes), and equal values have equal keys.
func TestValueKeyDistinct(t *testing.T) {
	seen := map[uint64]string{}
	for _, v := range benchValues(1 << 14) {
		for _, w := range [][]byte{v, v[:9], v[:3]} {
			k := valueKey(w)
			if prev, ok := seen[k]; ok && prev != string(w) {
				t.Fatalf("values % x and % x have the same key", prev, w)
			}
			seen[k] = string(w)
		}
	}
	if a, b := []byte("ab"), []byte("xab"); valueKey(nil) == valueKey([]byte{0}) || valueKey(a) != valueKey(b[1:]) {
		t.Error("valueKey: nil and {0} collide, or equal values differ")
	}
}
