package agree

import (
	"math/rand/v2"
	"testing"
)

// TestKeyTableTwin drives keyTable and a Go map with the same random
// puts and removals over a few hundred keys (many sharing their low
// bits, so that probe runs are long and wrap around the table) and
// compares every key's slot and the size after each step.
func TestKeyTableTwin(t *testing.T) {
	for seed := range uint64(20) {
		rnd := rand.New(rand.NewPCG(seed, 5))
		var tab keyTable
		ref := map[uint64]uint64{}
		keys := make([]uint64, 300)
		for i := range keys {
			keys[i] = rnd.Uint64()
			if i%2 == 0 {
				keys[i] = keys[i]&^0xff | 0xf0 + uint64(rnd.IntN(4)) // clustered near the table's end
			}
		}
		for step := range 3000 {
			k := keys[rnd.IntN(len(keys))]
			if rnd.IntN(5) < 3 {
				s := uint64(1 + rnd.IntN(1000))
				tab.put(k, s)
				ref[k] = s
			} else {
				tab.del(k)
				delete(ref, k)
			}
			for _, k := range keys {
				s, ok := tab.get(k)
				if rs, rok := ref[k]; ok != rok || s != rs {
					t.Fatalf("seed %d step %d: key %x is (%d, %v), want (%d, %v)", seed, step, k, s, ok, rs, rok)
				}
			}
			if tab.size() != len(ref) || 2*tab.size() > len(tab.keys) {
				t.Fatalf("seed %d step %d: %d keys in %d cells, want %d, at most half full", seed, step, tab.size(), len(tab.keys), len(ref))
			}
		}
	}
}
