package pgas

import (
	"fmt"
	"slices"
)

// allocator hands out block-aligned runs of one rank's heap, first fit.
// It is pure and deterministic: ranks that make the same calls in the
// same order get the same offsets, which is what makes allocations
// symmetric without messages.
//
// Invariants: free runs are sorted by offset, disjoint, non-empty and
// never adjacent (Free merges them); used maps each allocated offset to
// its length; free and used runs together tile [0, size).
type allocator struct {
	size int64
	free []run
	used map[int64]int64
}

type run struct{ off, n int64 }

func newAllocator(size int64) *allocator {
	a := &allocator{size: size, used: make(map[int64]int64)}
	if size > 0 {
		a.free = []run{{0, size}}
	}
	return a
}

// alloc reserves n > 0 bytes and returns their offset.
func (a *allocator) alloc(n int64) (int64, error) {
	for i, r := range a.free {
		if r.n < n {
			continue
		}
		if r.n == n {
			a.free = slices.Delete(a.free, i, i+1)
		} else {
			a.free[i] = run{r.off + n, r.n - n}
		}
		a.used[r.off] = n
		return r.off, nil
	}
	return 0, fmt.Errorf("%w: %d bytes requested on each rank, %d free (largest run %d), heap of %d",
		ErrOutOfHeap, n, a.freeBytes(), a.largest(), a.size)
}

// release returns the run allocated at off.
func (a *allocator) release(off int64) error {
	n, ok := a.used[off]
	if !ok {
		return fmt.Errorf("%w: offset %d was not allocated", ErrBadAddress, off)
	}
	delete(a.used, off)
	i, _ := slices.BinarySearchFunc(a.free, off, func(r run, off int64) int { return int(r.off - off) })
	a.free = slices.Insert(a.free, i, run{off, n})
	a.merge(i)
	return nil
}

// merge joins free run i with its neighbours where they touch.
func (a *allocator) merge(i int) {
	if i+1 < len(a.free) && a.free[i].off+a.free[i].n == a.free[i+1].off {
		a.free[i].n += a.free[i+1].n
		a.free = slices.Delete(a.free, i+1, i+2)
	}
	if i > 0 && a.free[i-1].off+a.free[i-1].n == a.free[i].off {
		a.free[i-1].n += a.free[i].n
		a.free = slices.Delete(a.free, i, i+1)
	}
}

func (a *allocator) freeBytes() int64 {
	var s int64
	for _, r := range a.free {
		s += r.n
	}
	return s
}

func (a *allocator) largest() int64 {
	var m int64
	for _, r := range a.free {
		m = max(m, r.n)
	}
	return m
}
