package pgas

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
)

// TestAllocSymmetric: every rank gets the same offsets, and elements
// stripe block-cyclic from rank 0.
func TestAllocSymmetric(t *testing.T) {
	j := newJob(t, 3, Config{HeapBytes: 4096}, nil)
	a := alloc[int64](t, j, 5)  // one block on rank 0; 64 bytes of every rank
	b := alloc[int32](t, j, 70) // 16 per block: 5 blocks, 2 on ranks 0 and 1
	for r := range 3 {
		if a[r].base != 0 || b[r].base != 64 {
			t.Errorf("rank %d: bases %d, %d; want 0, 64", r, a[r].base, b[r].base)
		}
	}
	for _, tc := range []struct {
		i    int
		want Addr
	}{{0, Addr{0, 64}}, {15, Addr{0, 124}}, {16, Addr{1, 64}}, {47, Addr{2, 124}}, {48, Addr{0, 128}}, {69, Addr{1, 148}}} {
		if got := b[1].At(tc.i).Addr(); got != tc.want {
			t.Errorf("int32 array element %d at %v; want %v", tc.i, got, tc.want)
		}
	}
	if c := alloc[int8](t, j, 1)[0]; c.base != 192 {
		t.Errorf("third array at %d; want 192 (64 + 2 blocks)", c.base)
	}
}

// TestAllocBeyondHeap fails with the sizes and leaves the heap usable.
func TestAllocBeyondHeap(t *testing.T) {
	j := newJob(t, 2, Config{HeapBytes: 1024}, nil)
	ctx := testCtx(t)
	alloc[int64](t, j, 64) // 4 blocks per rank: 256 bytes
	_, err := Alloc[int64](ctx, j.hs[0], 200)
	if !errors.Is(err, ErrOutOfHeap) {
		t.Fatalf("Alloc beyond the heap: %v; want ErrOutOfHeap", err)
	}
	for _, want := range []string{"200 elements of 8 bytes", "832 bytes requested", "768 free", "heap of 1024"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	for _, n := range []int{0, -1} {
		if _, err := Alloc[int64](ctx, j.hs[0], n); !errors.Is(err, ErrBadSize) {
			t.Errorf("Alloc(%d): %v; want ErrBadSize", n, err)
		}
	}
	small := newJob(t, 2, Config{HeapBytes: 64, Block: 4}, nil)
	if _, err := Alloc[int64](ctx, small.hs[0], 1); !errors.Is(err, ErrBadSize) {
		t.Errorf("Alloc of 8-byte elements in 4-byte blocks: %v; want ErrBadSize", err)
	}
	if _, err := Alloc[int64](ctx, j.hs[0], 96); err != nil {
		t.Errorf("Alloc that fits after a failure: %v", err)
	}
}

// TestFreeReuse: freed memory is reused, zeroed, and a double Free fails.
func TestFreeReuse(t *testing.T) {
	j := newJob(t, 2, Config{HeapBytes: 256}, nil)
	ctx := testCtx(t)
	a := alloc[int64](t, j, 64) // all of both heaps
	if err := a[0].At(31).Write(ctx, 7); err != nil {
		t.Fatal(err)
	}
	if _, err := Alloc[int64](ctx, j.hs[0], 1); !errors.Is(err, ErrOutOfHeap) {
		t.Fatalf("Alloc on a full heap: %v", err)
	}
	for r := range 2 {
		if err := a[r].Free(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := a[0].Free(ctx); !errors.Is(err, ErrBadAddress) {
		t.Errorf("double Free: %v; want ErrBadAddress", err)
	}
	b := alloc[int64](t, j, 64)
	if v, err := b[0].At(31).Read(ctx); err != nil || v != 0 || b[0].base != 0 {
		t.Errorf("reused element: %d, %v at base %d; want 0 at 0", v, err, b[0].base)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{{HeapBytes: 100}, {HeapBytes: -64}, {Block: -1}} {
		if err := c.Validate(); !errors.Is(err, ErrBadSize) {
			t.Errorf("%+v: %v; want ErrBadSize", c, err)
		}
	}
	var reg am.Registry
	if _, err := New(&reg, Config{HeapBytes: 100}); !errors.Is(err, ErrBadSize) {
		t.Errorf("New with a bad config: %v", err)
	}
	h, _ := New(&reg, Config{})
	if _, err := Alloc[int64](context.Background(), h, 1); !errors.Is(err, ErrBound) {
		t.Errorf("Alloc before Bind: %v; want ErrBound", err)
	}
}

// TestPeerLost: delegates waiting on a rank that dies, and later ones,
// fail with ErrPeerLost; delegates homed elsewhere go on.
func TestPeerLost(t *testing.T) {
	block := make(chan struct{})
	var hang Func[int64]
	j := newJob(t, 3, Config{}, func(rank int, h *Heap) {
		f, _ := RegisterFunc(h, "hang", func(v int64, _ []byte) (int64, []byte, error) {
			<-block
			return v, nil, nil
		})
		if rank == 0 { // every rank's is the same
			hang = f
		}
	})
	defer close(block)
	ctx := testCtx(t)
	a := alloc[int64](t, j, 24)[0] // element 16 is on rank 2
	waiting := a.At(16).FetchAndAddAsync(ctx, 1)
	errs := make(chan error, 1)
	go func() { _, err := a.At(17).Call(ctx, hang, nil); errs <- err }()
	time.Sleep(10 * time.Millisecond)
	j.twin.Kill(2)
	if err := <-errs; !errors.Is(err, comm.ErrPeerLost) || !strings.Contains(err.Error(), "pgas: func hang at 2:8") {
		t.Errorf("waiting Call: %v; want ErrPeerLost", err)
	}
	if _, err := waiting.Wait(ctx); err != nil && !errors.Is(err, comm.ErrPeerLost) {
		t.Errorf("async FetchAndAdd: %v", err)
	}
	if _, err := a.At(18).FetchAndAdd(ctx, 1); !errors.Is(err, comm.ErrPeerLost) {
		t.Errorf("later FetchAndAdd: %v; want ErrPeerLost", err)
	}
	if err := j.hs[0].Quiet(ctx); !errors.Is(err, comm.ErrPeerLost) {
		t.Errorf("Quiet: %v; want ErrPeerLost", err)
	}
	if _, err := a.At(8).FetchAndAdd(ctx, 1); err != nil {
		t.Errorf("FetchAndAdd on a live rank: %v", err)
	}
}
