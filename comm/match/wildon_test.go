package match

import "testing"

// TestWildOn checks the switch to counted shards: exact traffic leaves
// it off, the first wildcard operation turns it on, and messages stored
// before the switch are found by the wildcard receives after it, earliest
// first, whether they lock a few shards or (past maxBusy) all of them.
func TestWildOn(t *testing.T) {
	for _, n := range []int{3, 2 * maxBusy} {
		tab := New[int, int](Config{})
		for i := range n { // exact traffic: one matched pair, then n stored
			k := Key{Comm: 1, Source: int32(i % 7), Tag: int32(i)}
			if i == 0 {
				tab.Post(k, -1)
			}
			tab.Arrive(k, i)
		}
		if tab.wildOn.Load() {
			t.Fatalf("n=%d: wildOn set by exact operations", n)
		}
		if _, k, ok := tab.Probe(Key{Comm: 1, Source: AnySource, Tag: AnyTag}); !ok || k.Tag != 1 {
			t.Fatalf("n=%d: first wildcard Probe = %v %v, want tag 1", n, k, ok)
		}
		if !tab.wildOn.Load() {
			t.Fatalf("n=%d: wildOn not set by a wildcard Probe", n)
		}
		for i := 1; i < n; i++ {
			m, ok, err := tab.Post(Key{Comm: 1, Source: AnySource, Tag: AnyTag}, 0)
			if err != nil || !ok || m != i {
				t.Fatalf("n=%d: wildcard Post %d got %d %v %v, want message %d", n, i, m, ok, err, i)
			}
		}
		if u, p := tab.Len(); u != 0 || p != 0 {
			t.Errorf("n=%d: left over %d unexpected, %d posted", n, u, p)
		}
	}
}

// TestTakeNBesideWildcardOperation checks that TakeN still takes exact
// receives while a wildcard Post or Probe is under way (its announcement
// in nwild, I4) but no wildcard receive is posted, and takes none once
// one is.
func TestTakeNBesideWildcardOperation(t *testing.T) {
	tab := New[int, int](Config{})
	k := Key{Comm: 1, Source: 2, Tag: 3}
	for i := range 4 {
		tab.Post(k, i)
	}
	tab.nwild.Add(1) // what lockBusy does before it looks at the shards
	out := make([]int, 3)
	if n, err := tab.TakeN(k, out); err != nil || n != 3 || out[0] != 0 || out[2] != 2 {
		t.Fatalf("TakeN beside an announcement = %d %v %v, want the first 3 receives", n, out, err)
	}
	tab.nwild.Add(-1)
	tab.Post(Key{Comm: 1, Source: AnySource, Tag: 3}, 9)
	if n, _ := tab.TakeN(k, out); n != 0 {
		t.Fatalf("TakeN with a wildcard receive posted took %d", n)
	}
	if r, ok, _ := tab.Arrive(k, 0); !ok || r != 3 {
		t.Fatalf("Arrive = %d %v, want the exact receive posted first", r, ok)
	}
}
