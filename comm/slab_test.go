package comm

import (
	"sync"
	"testing"
)

// TestSlabsDistinct: requests handed out concurrently are all distinct
// and zeroed, across slab boundaries.
func TestSlabsDistinct(t *testing.T) {
	var s slabs
	const goroutines, each = 8, 1000
	got := make([][]*Request, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range each {
				r := s.alloc()
				if r.w != nil || r.state.Load() != 0 || r.buf != nil {
					t.Error("a handed-out request was not zero")
				}
				r.tag = g // a write the race detector would see if shared
				got[g] = append(got[g], r)
			}
		})
	}
	wg.Wait()
	seen := make(map[*Request]bool)
	for _, rs := range got {
		for _, r := range rs {
			if seen[r] {
				t.Fatalf("request %p handed out twice", r)
			}
			seen[r] = true
		}
	}
	if len(seen) != goroutines*each {
		t.Fatalf("%d distinct requests, want %d", len(seen), goroutines*each)
	}
}
