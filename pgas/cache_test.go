package pgas

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
)

// TestCacheWriteBack: every rank acquires read-write a share of the
// array that spans every rank, changes it and releases it; each rank then
// reads the whole array read-only and finds every element exact. Small
// chunks and padded blocks make many pieces per rank.
func TestCacheWriteBack(t *testing.T) {
	for _, cfg := range []Config{{}, {Block: 62, HeapBytes: 62 << 12, CacheChunk: 124}} {
		const ranks, n = 3, 1000
		j := newJob(t, ranks, cfg, nil)
		ctx := testCtx(t)
		as := alloc[int32](t, j, n)
		fill(t, ctx, as[1], 0, n, func(i int) int32 { return int32(i) })
		var wg sync.WaitGroup
		for r := range ranks {
			lo, hi := r*n/ranks, (r+1)*n/ranks
			wg.Go(func() {
				if err := share(ctx, as[r], lo, hi, int32(1000*(r+1))); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		for r := range ranks {
			c, err := as[r].Acquire(ctx, 0, n, ReadOnly)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range c.Data() {
				if want := int32(i + 1000*(owner(i, n, ranks)+1)); v != want {
					t.Fatalf("config %+v: rank %d reads element %d = %d; want %d", cfg, r, i, v, want)
				}
			}
			if err := c.Release(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// owner returns the rank whose share [r*n/ranks, (r+1)*n/ranks) holds i.
func owner(i, n, ranks int) int {
	r := 0
	for (r+1)*n/ranks <= i {
		r++
	}
	return r
}

// fill sets elements [lo, hi) to f(i) through a write-only cache.
func fill[T Number](t *testing.T, ctx context.Context, a Array[T], lo, hi int, f func(int) T) {
	t.Helper()
	c, err := a.Acquire(ctx, lo, hi-lo, WriteOnly)
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Data() {
		if c.Data()[i] != 0 {
			t.Fatalf("write-only cache starts with %v at %d; want 0", c.Data()[i], i)
		}
		c.Data()[i] = f(lo + i)
	}
	if err := c.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// share checks that [lo, hi) holds its indices, adds add to each
// through a read-write cache, and releases it.
func share(ctx context.Context, a Array[int32], lo, hi int, add int32) error {
	c, err := a.Acquire(ctx, lo, hi-lo, ReadWrite)
	if err != nil {
		return err
	}
	for i := range c.Data() {
		if c.Data()[i] != int32(lo+i) {
			return errors.New("read-write cache did not fetch the array")
		}
		c.Data()[i] += add
	}
	return c.Release(ctx)
}

// TestCacheModes: a read-only Release writes nothing, a write-only
// Acquire fetches nothing, and delegates see what Release stored.
func TestCacheModes(t *testing.T) {
	j := newJob(t, 2, Config{}, nil)
	ctx := testCtx(t)
	a := alloc[float64](t, j, 40)[0]
	a.At(37).Write(ctx, 2.5)
	ro, err := a.Acquire(ctx, 30, 10, ReadOnly)
	if err != nil || ro.Data()[7] != 2.5 || ro.Start() != 30 || ro.Mode() != ReadOnly {
		t.Fatalf("read-only Acquire: %v, %v", ro, err)
	}
	ro.Data()[7] = 9
	if err := ro.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.At(37).Read(ctx); v != 2.5 {
		t.Errorf("after a read-only Release: %v; want 2.5", v)
	}
	wo, err := a.Acquire(ctx, 36, 2, WriteOnly)
	if err != nil || wo.Data()[1] != 0 {
		t.Fatalf("write-only Acquire: %v, %v", wo.Data(), err)
	}
	wo.Data()[1] = -1
	if err := wo.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.At(37).Read(ctx); v != -1 {
		t.Errorf("after a write-only Release: %v; want -1", v)
	}
	if err := wo.Release(ctx); !errors.Is(err, ErrBadAddress) {
		t.Errorf("second Release: %v; want ErrBadAddress", err)
	}
}

// TestCacheBadRange: ranges outside the array and bad modes fail at
// Acquire with the sizes in the message; an empty range is fine.
func TestCacheBadRange(t *testing.T) {
	j := newJob(t, 2, Config{}, nil)
	ctx := testCtx(t)
	a := alloc[int64](t, j, 20)[0]
	for _, r := range [][2]int{{-1, 2}, {0, 21}, {19, 2}, {20, 1}, {5, -1}, {1 << 62, 1 << 62}} {
		if _, err := a.Acquire(ctx, r[0], r[1], ReadOnly); !errors.Is(err, ErrBadAddress) {
			t.Errorf("Acquire(%d, %d) of 20: %v; want ErrBadAddress", r[0], r[1], err)
		}
	}
	if _, err := a.Acquire(ctx, 0, 1, Mode(9)); !errors.Is(err, ErrBadSize) {
		t.Errorf("Acquire in mode 9: %v; want ErrBadSize", err)
	}
	if c, err := a.Acquire(ctx, 20, 0, ReadWrite); err != nil || len(c.Data()) != 0 || c.Release(ctx) != nil {
		t.Errorf("empty Acquire at the end: %v", err)
	}
	var zero Array[int64]
	if _, err := zero.Acquire(ctx, 0, 0, ReadOnly); !errors.Is(err, ErrBadAddress) {
		t.Errorf("Acquire of the zero Array: %v", err)
	}
	if _, err := j.hs[0].get(ctx, 1, appendGet(nil, 1<<30, 8)); !errors.Is(err, ErrBadAddress) {
		t.Errorf("home: get outside the heap: %v", err)
	}
	if _, err := j.hs[0].put(ctx, 1, appendGet(nil, DefaultHeapBytes-2, 0)); !errors.Is(err, ErrBadAddress) {
		t.Errorf("home: put of 4 bytes across the heap's end: %v", err)
	}
}

// TestCacheLostRank: when a home dies, Acquire and Release of a range
// on it fail with ErrPeerLost, and ranges on live ranks still work.
func TestCacheLostRank(t *testing.T) {
	j := newJob(t, 3, Config{}, nil)
	ctx := testCtx(t)
	a := alloc[int64](t, j, 8*3*4)[0]
	rw, err := a.Acquire(ctx, 0, a.Len(), ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	j.twin.Kill(2)
	if err := rw.Release(ctx); !errors.Is(err, comm.ErrPeerLost) {
		t.Errorf("Release with rank 2 lost: %v; want ErrPeerLost", err)
	}
	if _, err := a.Acquire(ctx, 0, a.Len(), ReadOnly); !errors.Is(err, comm.ErrPeerLost) {
		t.Errorf("Acquire with rank 2 lost: %v; want ErrPeerLost", err)
	}
	if _, err := a.Acquire(ctx, 0, 16, ReadOnly); err != nil { // ranks 0 and 1
		t.Errorf("Acquire on live ranks: %v", err)
	}
}

// TestCacheNoTornElements: while every rank adds a byte pattern to
// elements on every rank with FetchAndAdd, repeated read-only Acquires
// (a piece per block) see only whole multiples of the pattern, and once
// the adds are done a cache sees every one of them.
func TestCacheNoTornElements(t *testing.T) {
	const ranks, n, pattern = 3, 8 * 3 * 4, 0x0101010101010101
	j := newJob(t, ranks, Config{CacheChunk: 64}, nil)
	ctx := testCtx(t)
	as := alloc[uint64](t, j, n)
	adds := 200
	if testing.Short() {
		adds = 50
	}
	var wg sync.WaitGroup
	for r := range ranks {
		wg.Go(func() {
			for k := range adds {
				if _, err := as[r].At((k*5+r)%n).FetchAndAdd(ctx, pattern); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range 20 {
		c, err := as[0].Acquire(ctx, 0, n, ReadOnly)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range c.Data() {
			if v%pattern != 0 {
				t.Fatalf("element %d = %#x: torn by a concurrent FetchAndAdd", i, v)
			}
		}
		c.Release(ctx)
	}
	wg.Wait()
	c, err := as[1].Acquire(ctx, 0, n, ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	var sum uint64
	for _, v := range c.Data() {
		sum += v / pattern
	}
	if sum != uint64(ranks*adds) {
		t.Errorf("adds seen through the cache: %d; want %d", sum, ranks*adds)
	}
}

// TestCacheContext: an ended context fails Acquire and Release with
// ctx.Err() itself, unwrapped.
func TestCacheContext(t *testing.T) {
	j := newJob(t, 2, Config{}, nil)
	a := alloc[int16](t, j, 200)[0]
	ctx, cancel := context.WithCancel(testCtx(t))
	c, err := a.Acquire(ctx, 0, a.Len(), ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := c.Release(ctx); err != context.Canceled {
		t.Errorf("Release with an ended context: %v; want context.Canceled", err)
	}
	for _, m := range []Mode{ReadOnly, WriteOnly} {
		if _, err := a.Acquire(ctx, 0, a.Len(), m); err != context.Canceled {
			t.Errorf("%v Acquire with an ended context: %v; want context.Canceled", m, err)
		}
	}
}

// TestCacheChunkTooLarge: a CacheChunk beyond the engine's MaxArgs makes
// Acquire and Release fail with am's too-large error, naming the sizes,
// rather than hang.
func TestCacheChunkTooLarge(t *testing.T) {
	j := newJob(t, 2, Config{CacheChunk: 2 * am.DefaultMaxArgs}, nil)
	ctx := testCtx(t)
	a := alloc[int64](t, j, 16<<10)[0] // 64 KiB on each rank
	_, err := a.Acquire(ctx, 0, a.Len(), ReadOnly)
	var re *am.RemoteError
	if !errors.As(err, &re) || !strings.Contains(re.Msg, "too large") {
		t.Errorf("Acquire with chunks over MaxArgs: %v; want the home's too-large error", err)
	}
	c, err := a.Acquire(ctx, 0, a.Len(), WriteOnly)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Release(ctx); !errors.Is(err, am.ErrTooLarge) {
		t.Errorf("Release with chunks over MaxArgs: %v; want ErrTooLarge", err)
	}
}
