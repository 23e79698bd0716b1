package pgas

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestAllocatorFirstFit(t *testing.T) {
	a := newAllocator(256)
	steps := []struct {
		op   string
		n    int64 // bytes for alloc, offset for free
		want int64 // offset for alloc
	}{
		{"alloc", 64, 0},
		{"alloc", 128, 64},
		{"alloc", 64, 192},
		{"free", 64, 0},
		{"alloc", 64, 64},
		{"free", 0, 0},
		{"alloc", 32, 0},
		{"alloc", 32, 32},
	}
	for i, s := range steps {
		switch s.op {
		case "alloc":
			off, err := a.alloc(s.n)
			if err != nil || off != s.want {
				t.Fatalf("step %d: alloc(%d) = %d, %v; want %d", i, s.n, off, err, s.want)
			}
		case "free":
			if err := a.release(s.n); err != nil {
				t.Fatalf("step %d: release(%d): %v", i, s.n, err)
			}
		}
	}
}

func TestAllocatorErrors(t *testing.T) {
	a := newAllocator(256)
	a.alloc(64)
	a.alloc(64)
	a.release(0)
	_, err := a.alloc(200)
	if !errors.Is(err, ErrOutOfHeap) {
		t.Fatalf("alloc beyond heap: %v; want ErrOutOfHeap", err)
	}
	for _, want := range []string{"200 bytes requested", "192 free", "largest run 128", "heap of 256"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := a.release(8); !errors.Is(err, ErrBadAddress) {
		t.Errorf("release of an unallocated offset: %v; want ErrBadAddress", err)
	}
}

// TestAllocatorInvariants drives random allocs and frees and checks that
// free and used runs tile the heap and that freeing everything restores
// one free run.
func TestAllocatorInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := newAllocator(64 * 100)
	var live []int64
	for range 2000 {
		if len(live) > 0 && rng.IntN(2) == 0 {
			i := rng.IntN(len(live))
			if err := a.release(live[i]); err != nil {
				t.Fatal(err)
			}
			live = append(live[:i], live[i+1:]...)
		} else if off, err := a.alloc(64 * int64(1+rng.IntN(8))); err == nil {
			live = append(live, off)
		}
		checkTiling(t, a)
	}
	for _, off := range live {
		a.release(off)
	}
	if len(a.free) != 1 || a.free[0] != (run{0, a.size}) {
		t.Errorf("after freeing everything: %v", a.free)
	}
}

func checkTiling(t *testing.T, a *allocator) {
	t.Helper()
	covered := make([]int, a.size/64)
	mark := func(off, n int64) {
		for b := off / 64; b < (off+n)/64; b++ {
			covered[b]++
		}
	}
	for i, r := range a.free {
		if r.n <= 0 || (i > 0 && a.free[i-1].off+a.free[i-1].n >= r.off) {
			t.Fatalf("free runs unsorted, empty, overlapping or adjacent: %v", a.free)
		}
		mark(r.off, r.n)
	}
	for off, n := range a.used {
		mark(off, n)
	}
	for b, c := range covered {
		if c != 1 {
			t.Fatalf("block %d covered %d times", b, c)
		}
	}
}
