package match

import (
	"math/rand/v2"
	"testing"
)

// TestIndexAgainstMap adds and releases keys at random, so that probe runs
// wrap, shift back and resize, and checks every key against a Go map.
func TestIndexAgainstMap(t *testing.T) {
	var s shard[int, int]
	s.init()
	want := map[Key]int{}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200000 {
		k := Key{Tag: int32(rng.IntN(3000 - i/100))} // grows, then shrinks
		if n := want[k]; n > 0 && rng.IntN(2) == 0 {
			sl := s.keys.find(k, k.hash())
			if sl == nil || s.popPosted(sl, k.hash()) != n {
				t.Fatalf("op %d: key %v lost", i, k)
			}
			delete(want, k)
			continue
		}
		if want[k] == 0 {
			s.pushPosted(k, k.hash(), i+1, 0)
			want[k] = i + 1
		}
	}
	live := 0
	for _, sl := range s.keys.slots {
		if sl.used && !sl.empty() {
			live++
		}
	}
	if live != len(want) || s.keys.used > live+minSlots/4 {
		t.Fatalf("index holds %d keys in %d used slots, want %d", live, s.keys.used, len(want))
	}
	for k, n := range want {
		if sl := s.keys.find(k, k.hash()); sl == nil || sl.posted.head.val != n {
			t.Fatalf("key %v lost", k)
		}
	}
}
