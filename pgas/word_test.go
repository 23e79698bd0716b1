package pgas

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/internal/jobtest"
)

func TestIsWord(t *testing.T) {
	for _, c := range []struct {
		off  int64
		size int
		want bool
	}{{0, 8, true}, {8, 8, true}, {4, 8, false}, {4, 4, true}, {6, 4, false}, {0, 2, false}, {0, 1, false}} {
		if got := isWord(c.off, c.size); got != c.want && wordsOK {
			t.Errorf("isWord(%d, %d) = %v; want %v", c.off, c.size, got, c.want)
		}
	}
}

// twinOps runs one seeded sequence of every kind of delegate and cache
// copy on a one-rank heap and returns every result and the final
// memory, as text.
func twinOps(t *testing.T, seed uint64) []string {
	t.Helper()
	var inc Func[int64]
	j := newJob(t, 1, Config{HeapBytes: 1024}, func(_ int, h *Heap) {
		inc, _ = RegisterFunc(h, "inc", func(v int64, arg []byte) (int64, []byte, error) {
			return v + int64(len(arg)), []byte(fmt.Sprint(v)), nil
		})
	})
	ctx := testCtx(t)
	a := alloc[int64](t, j, 16)[0]
	f := alloc[float64](t, j, 4)[0]
	b := alloc[int32](t, j, 8)[0]
	rnd := rand.New(rand.NewPCG(seed, 1))
	var out []string
	note := func(v ...any) { out = append(out, fmt.Sprint(v...)) }
	for range 400 {
		p, i := a.At(rnd.IntN(16)), int64(rnd.IntN(4))
		switch rnd.IntN(9) {
		case 0:
			note(p.Read(ctx))
		case 1:
			note(p.Write(ctx, i))
		case 2:
			note(p.CompareAndSwap(ctx, i, i+1))
		case 3:
			note(p.FetchAndAdd(ctx, i-2))
		case 4:
			note(p.Add(ctx, i))
		case 5:
			note(p.Call(ctx, inc, make([]byte, i)))
		case 6:
			note(f.At(int(i)).FetchAndAdd(ctx, 0.5))
			note(f.At(int(i)).CompareAndSwapAsync(ctx, 1.5, -1).Wait(ctx))
		case 7:
			note(b.At(int(2*i)).FetchAndAddAsync(ctx, -3).Wait(ctx))
			note(b.At(int(2*i+1)).CompareAndSwap(ctx, 0, 7))
		case 8:
			c, err := a.Acquire(ctx, int(i), 8, ReadWrite)
			if err != nil {
				t.Fatal(err)
			}
			note(c.Data())
			c.Data()[0]++
			note(c.Release(ctx))
		}
	}
	h := j.hs[0]
	h.lock()
	defer h.mu.Unlock()
	return append(out, fmt.Sprint(h.mem))
}

// TestWordPathTwin drives the word path and its reference, the lock
// path alone (wordsOK false), with the same operations; every result
// and the final heap must agree.
func TestWordPathTwin(t *testing.T) {
	if !wordsOK {
		t.Skip("no word path on this machine")
	}
	for seed := range uint64(4) {
		words := twinOps(t, seed)
		wordsOK = false
		locked := twinOps(t, seed)
		wordsOK = true
		if len(words) < 400 {
			t.Fatalf("seed %d: %d results", seed, len(words))
		}
		if i := firstDiff(words, locked); i >= 0 {
			t.Fatalf("seed %d, step %d: word path %q, lock path %q", seed, i, words[i], locked[i])
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// TestWordFuncRetries: a Func on a word whose element another delegate
// changes while it runs runs again on the new value, and only the last
// run's result is stored.
func TestWordFuncRetries(t *testing.T) {
	if !wordsOK {
		t.Skip("no word path on this machine")
	}
	j := newJob(t, 1, Config{HeapBytes: 1024}, nil)
	h := j.hs[0]
	a := alloc[int64](t, j, 1)[0]
	off := a.At(0).Addr().Offset
	var seen []int64
	f := func(v int64, _ []byte) (int64, []byte, error) {
		seen = append(seen, v)
		if len(seen) == 1 {
			h.storeWord(off, 8, 40) // another delegate, between the load and the CAS
		}
		return v + 1, nil, nil
	}
	h.mu.Lock()
	_, err := applyWord(h, request{k: kindInt, off: off, size: 8}, f)
	h.mu.Unlock()
	if v, _ := a.At(0).Read(testCtx(t)); err != nil || v != 41 || !slices.Equal(seen, []int64{0, 40}) {
		t.Errorf("Func over a concurrent store: element %d, runs saw %v, %v; want 41, [0 40]", v, seen, err)
	}
}

// TestWordMixedExact: every rank's goroutines increment words homed on
// every rank by every delegate at once (CAS loops, FetchAndAdd, posted
// Adds, Funcs, blocking and async), while caches read and write the
// neighbouring words back; each counter ends exact.
func TestWordMixedExact(t *testing.T) {
	const ranks, goroutines = 2, 6
	n := 200 // even
	if testing.Short() {
		n = 60
	}
	incs := make([]Func[int64], ranks)
	j := newJob(t, ranks, Config{}, func(rank int, h *Heap) {
		incs[rank], _ = RegisterFunc(h, "inc", func(v int64, _ []byte) (int64, []byte, error) { return v + 1, nil, nil })
	})
	ctx := testCtx(t)
	as := alloc[int64](t, j, 16) // counters at 0 (rank 0) and 8 (rank 1); 1..7, 9..15 for caches
	var wg sync.WaitGroup
	for r := range ranks {
		for g := range goroutines {
			wg.Go(func() { mixedIncrements(t, ctx, as[r], incs[r], g, n) })
		}
	}
	wg.Wait()
	for _, h := range j.hs {
		if err := h.Quiet(ctx); err != nil {
			t.Fatal(err)
		}
	}
	want := int64(ranks * goroutines * n / 2) // each goroutine alternates the two
	for _, c := range []int{0, 8} {
		if v, err := as[1].At(c).Read(ctx); err != nil || v != want {
			t.Errorf("counter %d = %d, %v; want %d", c, v, err, want)
		}
	}
}

// mixedIncrements adds n to counters 0 and 8 of a, alternating them and
// the delegate; every fourth goroutine also rewrites elements 1..7
// through a cache, which must never touch the counters.
func mixedIncrements(t *testing.T, ctx context.Context, a Array[int64], inc Func[int64], g, n int) {
	for i := range n {
		p := a.At(8 * ((g + i) % 2))
		var err error
		switch i % 5 {
		case 0:
			_, err = p.FetchAndAdd(ctx, 1)
		case 1:
			err = p.Add(ctx, 1)
		case 2:
			_, err = p.Call(ctx, inc, nil)
		case 3:
			_, err = p.FetchAndAddAsync(ctx, 1).Wait(ctx)
		case 4:
			err = casIncrement(ctx, p)
		}
		if err == nil && g%4 == 0 {
			err = rewrite(ctx, a)
		}
		if err != nil {
			t.Error(err)
			return
		}
	}
}

func casIncrement(ctx context.Context, p Ptr[int64]) error {
	for {
		v, err := p.Read(ctx)
		if err != nil {
			return err
		}
		if ok, err := p.CompareAndSwap(ctx, v, v+1); err != nil || ok {
			return err
		}
	}
}

// rewrite reads elements 1..7 through a cache and writes them back.
func rewrite(ctx context.Context, a Array[int64]) error {
	c, err := a.Acquire(ctx, 1, 7, ReadWrite)
	if err != nil {
		return err
	}
	for i := range c.Data() {
		c.Data()[i]++
	}
	return c.Release(ctx)
}

// TestRunsKeepBytes: loadRun and storeRun copy runs of any alignment
// and length exactly.
func TestRunsKeepBytes(t *testing.T) {
	h := &Heap{mem: heapWords(64)}
	for off := range int64(9) {
		for n := range 20 {
			src := make([]byte, n)
			for i := range src {
				src[i] = byte(off) + byte(3*i) + 1
			}
			clear(h.mem)
			h.storeRun(off, src)
			got := make([]byte, n)
			h.loadRun(got, off)
			outside := slices.Concat(h.mem[:off], h.mem[off+int64(n):])
			if !slices.Equal(got, src) || slices.ContainsFunc(outside, func(b byte) bool { return b != 0 }) {
				t.Fatalf("run of %d at %d: read back %v, wrote %v; heap %v", n, off, got, src, h.mem)
			}
		}
	}
}

// BenchmarkLocalCAS compares a CompareAndSwap homed on the calling rank
// on the word path, on the lock path (the reference), and sync/atomic's
// on plain memory.
func BenchmarkLocalCAS(b *testing.B) {
	for _, path := range []string{"word", "lock", "atomic"} {
		b.Run("path="+path, func(b *testing.B) {
			_, ws := jobtest.TwinWorlds(b, 1)
			_, hs := jobtest.Engines(b, ws, func(r int, w *comm.World) (*am.Engine, *Heap, error) {
				return start(w, r, Config{HeapBytes: 1 << 20}, nil)
			}, nil)
			a, err := Alloc[int64](context.Background(), hs[0], 1<<16)
			if err != nil {
				b.Fatal(err)
			}
			if path == "lock" {
				wordsOK = false
				defer func() { wordsOK = littleEndian }()
			}
			benchCAS(b, a, path == "atomic")
		})
	}
}

func benchCAS(b *testing.B, a Array[int64], plain bool) {
	ctx := context.Background()
	mem := make([]atomic.Int64, a.Len())
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i = (i + 7919) % a.Len()
		if plain {
			mem[i].CompareAndSwap(0, 1)
			mem[i].Store(0)
			continue
		}
		if _, err := a.At(i).CompareAndSwap(ctx, 0, 1); err != nil {
			b.Fatal(err)
		}
		a.At(i).Write(ctx, 0)
	}
}

// TestAtIsHome: At's address of every element is Layout.Home of the
// element's linear address, for several block sizes and rank counts.
func TestAtIsHome(t *testing.T) {
	for _, ranks := range []int{1, 2, 3, 5} {
		for _, block := range []int64{8, 24, 64} {
			lay := Layout{Block: block, Ranks: ranks}
			h := &Heap{cfg: Config{Block: block}, lay: lay}
			a := Array[int32]{h: h, base: 3 * block, n: 100, per: block / 4, size: 4, k: kindInt}
			for i := range 100 {
				lin := a.base*int64(ranks) + int64(i)/a.per*block + int64(i)%a.per*4
				if got, want := a.At(i).Addr(), lay.Home(lin); got != want {
					t.Fatalf("%d ranks, blocks of %d: At(%d) = %v; want %v", ranks, block, i, got, want)
				}
			}
		}
	}
}
