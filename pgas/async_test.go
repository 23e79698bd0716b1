package pgas

import (
	"context"
	"errors"
	"testing"
)

// TestAsyncDelegates fires every async delegate from every rank at
// elements homed on every rank, many in flight before the first Wait,
// and checks each result, including that a rank's delegates to one home
// run in the order it issued them.
func TestAsyncDelegates(t *testing.T) {
	const ranks, n = 3, 24 // one block of int64 per rank
	j := newJob(t, ranks, Config{}, nil)
	ctx := testCtx(t)
	as := alloc[int64](t, j, n)
	for src := range ranks {
		a := as[src]
		val := func(i int) int64 { return int64(100*src + i) }
		writes := make([]*Future[struct{}], n)
		reads := make([]*Future[int64], n)
		for i := range n {
			writes[i] = a.At(i).WriteAsync(ctx, val(i))
			reads[i] = a.At(i).ReadAsync(ctx) // after the write: same source, same home
		}
		for i := range n {
			if _, err := writes[i].Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if v, err := reads[i].Wait(ctx); err != nil || v != val(i) {
				t.Fatalf("rank %d: ReadAsync of element %d = %d, %v; want %d", src, i, v, err, val(i))
			}
		}
		stale, swap, adds := make([]*Future[bool], n), make([]*Future[bool], n), make([]*Future[int64], n)
		for i := range n {
			p := a.At(i)
			stale[i] = p.CompareAndSwapAsync(ctx, val(i)+1, -1)
			swap[i] = p.CompareAndSwapAsync(ctx, val(i), 7)
			adds[i] = p.FetchAndAddAsync(ctx, 3)
		}
		for i := range n {
			if ok, err := stale[i].Wait(ctx); err != nil || ok {
				t.Fatalf("CompareAndSwapAsync with a stale value: %v, %v; want false", ok, err)
			}
			if ok, err := swap[i].Wait(ctx); err != nil || !ok {
				t.Fatalf("CompareAndSwapAsync: %v, %v; want true", ok, err)
			}
			if old, err := adds[i].Wait(ctx); err != nil || old != 7 {
				t.Fatalf("FetchAndAddAsync after the swap: %d, %v; want 7", old, err)
			}
		}
	}
}

// TestAsyncErrors: the zero Ptr and an ended context fail at Wait.
func TestAsyncErrors(t *testing.T) {
	j := newJob(t, 2, Config{}, nil)
	var zero Ptr[int32]
	ctx := testCtx(t)
	if _, err := zero.ReadAsync(ctx).Wait(ctx); !errors.Is(err, ErrBadAddress) {
		t.Errorf("ReadAsync of the zero Ptr: %v", err)
	}
	if _, err := zero.CompareAndSwapAsync(ctx, 1, 2).Wait(ctx); !errors.Is(err, ErrBadAddress) {
		t.Errorf("CompareAndSwapAsync of the zero Ptr: %v", err)
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	p := alloc[int32](t, j, 32)[0].At(20) // rank 1
	if _, err := p.WriteAsync(ended, 1).Wait(ended); err != context.Canceled {
		t.Errorf("WriteAsync with an ended context: %v; want context.Canceled unwrapped", err)
	}
	f := p.ReadAsync(ctx)
	if _, err := f.Wait(ended); err != context.Canceled {
		t.Errorf("Wait with an ended context: %v; want context.Canceled", err)
	}
}
