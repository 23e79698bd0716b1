package pgas

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/plexus-hpc/plexus/am"
)

// TestDelegates runs every delegate from every rank on elements homed on
// every rank.
func TestDelegates(t *testing.T) {
	var double Func[int64]
	j := newJob(t, 3, Config{}, func(rank int, h *Heap) {
		f, _ := RegisterFunc(h, "double", func(v int64, arg []byte) (int64, []byte, error) {
			return 2 * v, []byte(fmt.Sprint(v, string(arg))), nil
		})
		if rank == 0 { // every rank's is the same
			double = f
		}
	})
	ctx := testCtx(t)
	as := alloc[int64](t, j, 24) // 8 per block: three blocks, one per rank
	for src := range 3 {
		for i := range 24 {
			p := as[src].At(i)
			if want := (i / 8) % 3; p.Addr().Rank != want {
				t.Fatalf("element %d at %v; want rank %d", i, p.Addr(), want)
			}
			check(t, ctx, src, i, p, double)
		}
	}
}

func check(t *testing.T, ctx context.Context, src, i int, p Ptr[int64], double Func[int64]) {
	t.Helper()
	base := int64(100 * (src + 1))
	if err := p.Write(ctx, base); err != nil {
		t.Fatalf("rank %d element %d: Write: %v", src, i, err)
	}
	if v, err := p.Read(ctx); err != nil || v != base {
		t.Fatalf("rank %d element %d: Read = %d, %v; want %d", src, i, v, err, base)
	}
	if old, err := p.FetchAndAdd(ctx, 5); err != nil || old != base {
		t.Fatalf("FetchAndAdd = %d, %v; want %d", old, err, base)
	}
	if ok, err := p.CompareAndSwap(ctx, base, 1); err != nil || ok {
		t.Fatalf("CAS with a stale value = %v, %v; want false", ok, err)
	}
	if ok, err := p.CompareAndSwap(ctx, base+5, 7); err != nil || !ok {
		t.Fatalf("CAS = %v, %v; want true", ok, err)
	}
	if old, err := p.FetchAndAddAsync(ctx, -2).Wait(ctx); err != nil || old != 7 {
		t.Fatalf("FetchAndAddAsync = %d, %v; want 7", old, err)
	}
	if err := p.Add(ctx, 3); err != nil {
		t.Fatal(err)
	}
	reply, err := p.Call(ctx, double, []byte("!"))
	if err != nil || string(reply) != "8!" {
		t.Fatalf("Call = %q, %v; want 8!", reply, err)
	}
	if v, err := p.Read(ctx); err != nil || v != 16 {
		t.Fatalf("after Call: %d, %v; want 16", v, err)
	}
}

// TestTypes round-trips each kind of element, with negative values,
// wrap-around and float addition.
func TestTypes(t *testing.T) {
	j := newJob(t, 2, Config{}, nil)
	ctx := testCtx(t)
	i8 := alloc[int8](t, j, 130)[0].At(129) // on rank 1: blocks of 64 int8
	if err := i8.Write(ctx, 127); err != nil {
		t.Fatal(err)
	}
	if old, err := i8.FetchAndAdd(ctx, 1); err != nil || old != 127 {
		t.Fatalf("int8 FetchAndAdd = %d, %v", old, err)
	}
	if v, _ := i8.Read(ctx); v != -128 {
		t.Errorf("int8 127+1 = %d; want -128", v)
	}
	u32 := alloc[uint32](t, j, 32)[0].At(20)
	u32.Write(ctx, math.MaxUint32)
	if v, _ := u32.Read(ctx); v != math.MaxUint32 {
		t.Errorf("uint32 = %d", v)
	}
	f64 := alloc[float64](t, j, 16)[0].At(9)
	f64.Write(ctx, 1.5)
	f64.FetchAndAdd(ctx, -0.25)
	if v, _ := f64.Read(ctx); v != 1.25 {
		t.Errorf("float64 = %v; want 1.25", v)
	}
	f32 := alloc[float32](t, j, 32)[0].At(31)
	f32.FetchAndAdd(ctx, 2.5)
	if ok, _ := f32.CompareAndSwap(ctx, 2.5, float32(math.NaN())); !ok {
		t.Error("float32 CAS 2.5 failed")
	}
	if v, _ := f32.Read(ctx); !math.IsNaN(float64(v)) {
		t.Errorf("float32 = %v; want NaN", v)
	}
}

// TestFuncError: a Func's error reaches the caller and leaves the element.
func TestFuncError(t *testing.T) {
	var fail Func[int32]
	j := newJob(t, 2, Config{}, func(rank int, h *Heap) {
		f, _ := RegisterFunc(h, "fail", func(v int32, _ []byte) (int32, []byte, error) {
			return 99, nil, errors.New("refused")
		})
		if rank == 0 { // every rank's is the same
			fail = f
		}
	})
	ctx := testCtx(t)
	p := alloc[int32](t, j, 32)[0].At(16) // rank 1
	p.Write(ctx, 4)
	_, err := p.Call(ctx, fail, nil)
	var re *am.RemoteError
	if !errors.As(err, &re) || re.Msg != "refused" {
		t.Errorf("Call of a failing func: %v; want a RemoteError", err)
	}
	if v, _ := p.Read(ctx); v != 4 {
		t.Errorf("element after a failed func: %d; want 4", v)
	}
}

// TestFetchAndAddExactlyOnce: every rank's goroutines add to counters
// homed on every rank, blocking, async and posted; the sums are exact.
func TestFetchAndAddExactlyOnce(t *testing.T) {
	const ranks, goroutines = 3, 16
	n := 400
	if testing.Short() {
		n = 100
	}
	j := newJob(t, ranks, Config{}, nil)
	ctx := testCtx(t)
	as := alloc[int64](t, j, 3*8) // counter c at element 8c: one per rank
	var wg sync.WaitGroup
	olds := make([]sync.Map, ranks) // old values seen per counter: each once
	for r := range ranks {
		for g := range goroutines {
			wg.Go(func() {
				for i := range n {
					c := (g + i) % ranks
					p := as[r].At(8 * c)
					var old int64
					var err error
					switch i % 3 {
					case 0:
						old, err = p.FetchAndAdd(ctx, 1)
					case 1:
						old, err = p.FetchAndAddAsync(ctx, 1).Wait(ctx)
					case 2:
						old, err = -1, p.Add(ctx, 1)
					}
					if err != nil {
						t.Error(err)
						return
					}
					if _, dup := olds[c].LoadOrStore(old, true); dup && old >= 0 {
						t.Errorf("counter %d: old value %d seen twice", c, old)
					}
				}
			})
		}
	}
	wg.Wait()
	for _, h := range j.hs {
		if err := h.Quiet(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var total int64
	for c := range ranks {
		v, err := as[0].At(8 * c).Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		total += v
	}
	if want := int64(ranks * goroutines * n); total != want {
		t.Errorf("sum of counters %d; want %d", total, want)
	}
}

// TestCASCounter: a counter incremented only by CAS loops from every
// rank is exact.
func TestCASCounter(t *testing.T) {
	const ranks, goroutines = 3, 8
	n := 100
	if testing.Short() {
		n = 30
	}
	j := newJob(t, ranks, Config{}, nil)
	ctx := testCtx(t)
	as := alloc[uint64](t, j, 16) // element 8 is on rank 1
	var wg sync.WaitGroup
	for r := range ranks {
		p := as[r].At(8)
		for range goroutines {
			wg.Go(func() {
				for range n {
					for {
						v, err := p.Read(ctx)
						if err != nil {
							t.Error(err)
							return
						}
						if ok, err := p.CompareAndSwap(ctx, v, v+1); err != nil || ok {
							break
						}
					}
				}
			})
		}
	}
	wg.Wait()
	if v, err := as[2].At(8).Read(ctx); err != nil || v != uint64(ranks*goroutines*n) {
		t.Errorf("CAS counter = %d, %v; want %d", v, err, ranks*goroutines*n)
	}
}

// TestBadAddress: pointers outside the heap and malformed delegates fail
// at the caller; At out of range panics.
func TestBadAddress(t *testing.T) {
	j := newJob(t, 2, Config{HeapBytes: 1024}, nil)
	h := j.hs[0]
	for _, a := range []Addr{{2, 0}, {-1, 0}, {1, -8}, {1, 1020}, {0, 1024}, {0, math.MaxInt64}} {
		if _, err := PtrAt[int64](h, a); !errors.Is(err, ErrBadAddress) {
			t.Errorf("PtrAt(%v): %v; want ErrBadAddress", a, err)
		}
	}
	if p, err := PtrAt[int64](h, Addr{1, 1016}); err != nil || p.Addr() != (Addr{1, 1016}) {
		t.Errorf("PtrAt of the last element: %v, %v", p, err)
	}
	var zero Ptr[int64]
	if _, err := zero.Read(testCtx(t)); !errors.Is(err, ErrBadAddress) {
		t.Errorf("Read of the zero Ptr: %v", err)
	}
	if _, err := h.decode([]byte{1, 8, 0xfc, 3, 0, 0, 0, 0, 0, 0}, 0); !errors.Is(err, ErrBadAddress) {
		t.Errorf("home: 8 bytes at offset 1020 of a 1024 heap: %v", err)
	}
	if _, err := h.decode([]byte{1, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, 0); !errors.Is(err, ErrBadAddress) {
		t.Errorf("home: offset MaxInt64: %v", err)
	}
	for _, hdr := range [][2]byte{{1, 9}, {1, 3}, {1, 0}, {byte(kindFloat64), 4}, {byte(kindFloat32), 8}, {0, 8}, {4, 8}} {
		if _, err := h.decode([]byte{hdr[0], hdr[1], 0, 0, 0, 0, 0, 0, 0, 0}, 0); !errors.Is(err, ErrBadSize) {
			t.Errorf("home: element of kind %d, %d bytes: %v; want ErrBadSize", hdr[0], hdr[1], err)
		}
	}
	a := alloc[int64](t, j, 4)[0]
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "index 4 out of range") {
			t.Errorf("At(4) of 4: recovered %v", r)
		}
	}()
	a.At(4)
}
