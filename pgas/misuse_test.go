package pgas

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/am"
)

// TestAllocHuge: an element count whose bytes overflow int64 is out of
// heap, not a small allocation that overlaps the next one.
func TestAllocHuge(t *testing.T) {
	j := newJob(t, 2, Config{HeapBytes: 64 << 10}, nil)
	ctx := testCtx(t)
	for _, n := range []int{math.MaxInt / 4, math.MaxInt, 1 << 40} {
		if _, err := Alloc[int64](ctx, j.hs[0], n); !errors.Is(err, ErrOutOfHeap) {
			t.Errorf("Alloc of %d elements: %v, want ErrOutOfHeap", n, err)
		}
	}
	a, b := alloc[int64](t, j, 16), alloc[int64](t, j, 16)
	if err := a[0].At(3).Write(ctx, 42); err != nil {
		t.Fatal(err)
	}
	if v, err := b[0].At(3).Read(ctx); err != nil || v != 0 {
		t.Errorf("the second array reads %d, %v; want 0: arrays overlap", v, err)
	}
}

// TestConfigHugeHeap: a heap past MaxHeapBytes is refused by Validate and
// New, not a panic when New makes it.
func TestConfigHugeHeap(t *testing.T) {
	cfg := Config{HeapBytes: 1 << 50}
	if err := cfg.Validate(); !errors.Is(err, ErrBadSize) {
		t.Errorf("Validate(heap of 2^50 bytes): %v, want ErrBadSize", err)
	}
	if _, err := New(new(am.Registry), cfg); !errors.Is(err, ErrBadSize) {
		t.Errorf("New(heap of 2^50 bytes): %v, want ErrBadSize", err)
	}
}

// TestRegisterFuncRefuses: a nil function (which would crash the home
// rank) and an empty name (which no Call can use) are refused.
func TestRegisterFuncRefuses(t *testing.T) {
	h, err := New(new(am.Registry), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RegisterFunc[int64](h, "nilf", nil); !errors.Is(err, am.ErrRegistry) {
		t.Errorf("RegisterFunc(nil): %v, want am.ErrRegistry", err)
	}
	inc := func(v int64, _ []byte) (int64, []byte, error) { return v + 1, nil, nil }
	if _, err := RegisterFunc(h, "", inc); !errors.Is(err, am.ErrRegistry) {
		t.Errorf("RegisterFunc with no name: %v, want am.ErrRegistry", err)
	}
}

// TestCallReplyTooLarge: a Func whose reply the engine cannot carry
// fails the same way wherever the element lives, and leaves it as it was.
func TestCallReplyTooLarge(t *testing.T) {
	var big Func[int64]
	j := newJob(t, 2, Config{}, func(rank int, h *Heap) {
		f, err := RegisterFunc(h, "big", func(v int64, _ []byte) (int64, []byte, error) {
			return v + 1, make([]byte, 1<<20), nil
		})
		if err != nil {
			t.Error(err)
		}
		if rank == 0 {
			big = f
		}
	})
	ctx := testCtx(t)
	as := alloc[int64](t, j, 2*int(DefaultBlock/8)) // one block on each rank
	for _, i := range []int{0, int(DefaultBlock / 8)} {
		p := as[0].At(i)
		if _, err := p.Call(ctx, big, nil); !tooLarge(err) {
			t.Errorf("element %d (rank %d): Call: %v, want am.ErrTooLarge", i, p.Addr().Rank, err)
		}
		if v, err := p.Read(ctx); err != nil || v != 0 {
			t.Errorf("element %d (rank %d) after the failed Call: %d, %v; want 0", i, p.Addr().Rank, v, err)
		}
	}
}

// tooLarge reports whether err is am.ErrTooLarge, wrapped here or, from
// another rank, as the text of an *am.RemoteError (which carries only
// the text).
func tooLarge(err error) bool {
	var re *am.RemoteError
	return errors.Is(err, am.ErrTooLarge) || errors.As(err, &re) && strings.Contains(re.Msg, am.ErrTooLarge.Error())
}

// TestZeroFuture: Wait on a Future no delegate returned is an error.
func TestZeroFuture(t *testing.T) {
	if _, err := new(Future[int64]).Wait(testCtx(t)); !errors.Is(err, ErrBadAddress) {
		t.Errorf("Wait on the zero Future: %v, want ErrBadAddress", err)
	}
}

// TestRankBeforeBind: a heap not yet bound to an engine has no rank.
func TestRankBeforeBind(t *testing.T) {
	h, err := New(new(am.Registry), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if r := h.Rank(); r != -1 {
		t.Errorf("Rank before Bind: %d, want -1", r)
	}
}
