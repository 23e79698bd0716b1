package comm

import (
	"sync"
	"sync/atomic"
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

// TestSlabsReuse: freed requests come back zeroed, from the stack first;
// the stack keeps at most stackRequests and the rest go to the pool; and
// goroutines freeing and allocating at once never share a request.
func TestSlabsReuse(t *testing.T) {
	var s slabs
	reqs := make([]*Request, stackRequests+10)
	for i := range reqs {
		reqs[i] = s.alloc()
		reqs[i].tag = 7
		reqs[i].reset()
	}
	s.put(reqs)
	if len(s.stack) != stackRequests {
		t.Fatalf("stack holds %d requests after %d were freed, want the bound %d", len(s.stack), len(reqs), stackRequests)
	}
	if r := s.alloc(); r != reqs[stackRequests-1] || r.tag != 0 || r.state.Load() != statePending {
		t.Fatalf("alloc after put: %p tag %d state %d, want the last stacked request %p, zeroed and pending",
			r, r.tag, r.state.Load(), reqs[stackRequests-1])
	}

	const goroutines, rounds, each = 4, 200, 16
	var owner [1 << 16]atomic.Int32 // per request slot, by pointer: who holds it
	held := make(map[*Request]int)
	var mu sync.Mutex
	index := func(r *Request) int {
		mu.Lock()
		defer mu.Unlock()
		i, ok := held[r]
		if !ok {
			i = len(held)
			held[r] = i
		}
		return i
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			mine := make([]*Request, each)
			for range rounds {
				for i := range mine {
					mine[i] = s.alloc()
					if !owner[index(mine[i])].CompareAndSwap(0, int32(g+1)) {
						t.Error("a request was handed to two goroutines at once")
						return
					}
				}
				for _, r := range mine {
					owner[index(r)].Store(0)
					r.reset()
				}
				s.put(mine)
			}
		})
	}
	wg.Wait()
}
