package pgas

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/am"
)

// inflight is one message to a home rank: its reply already known (the
// home was this rank, or the send failed), or an am Reply to wait on.
type inflight struct {
	r    *am.Reply
	b    []byte
	err  error // final, already wrapped
	name string
	addr Addr
}

// send starts handler id, whose home side is home, at rank: in place,
// under the home's lock, when this rank is home, else as an am
// CallAsync that shares packets with the others in flight to rank.
func (h *Heap) send(ctx context.Context, name string, id am.ID, home am.Handler, addr Addr, args []byte) inflight {
	in := inflight{name: name, addr: addr}
	if err := ctx.Err(); err != nil {
		in.err = err
		return in
	}
	if addr.Rank == h.e.Rank() {
		in.b, in.err = home(ctx, addr.Rank, args)
		in.err = in.wrap(ctx, in.err)
		return in
	}
	in.r, in.err = h.e.CallAsync(ctx, addr.Rank, id, args)
	in.err = in.wrap(ctx, in.err)
	return in
}

// wait returns the reply once it has come back.
func (in *inflight) wait(ctx context.Context) ([]byte, error) {
	if in.r == nil || in.err != nil {
		return in.b, in.err
	}
	b, err := in.r.Wait(ctx)
	return b, in.wrap(ctx, err)
}

// wrap names the operation and address in err, except ctx's own error,
// which passes unchanged.
func (in *inflight) wrap(ctx context.Context, err error) error {
	if err == nil || err == ctx.Err() {
		return err
	}
	return wrapOp(err, in.name, in.addr)
}

// Future is the result of an async delegate: a value of T (bool for
// CompareAndSwapAsync, struct{} for WriteAsync) once the delegate has
// run at its home.
//
// Wait is called by one goroutine at a time; calls after the first
// return what the first returned.
type Future[T any] struct {
	in     inflight
	decode func([]byte) (T, error)
}

// Wait returns the delegate's result once it has come back, or
// ctx.Err() when ctx ends first (the delegate may still run). When the
// home rank is lost it returns an error wrapping comm.ErrPeerLost.
func (f *Future[T]) Wait(ctx context.Context) (T, error) {
	var zero T
	if f.decode == nil && f.in.err == nil {
		return zero, fmt.Errorf("%w: Wait on the zero Future (the Async delegates return the Futures to wait on)", ErrBadAddress)
	}
	b, err := f.in.wait(ctx)
	if err != nil {
		return zero, err
	}
	v, err := f.decode(b)
	if err != nil {
		return zero, wrapOp(err, f.in.name, f.in.addr)
	}
	return v, nil
}

// async starts op at p's home and returns its Future.
func async[V any, T Number](ctx context.Context, p Ptr[T], op int, args []byte, decode func([]byte) (V, error)) *Future[V] {
	if p.h == nil {
		return &Future[V]{in: inflight{err: fmt.Errorf("%w: delegate on the zero Ptr", ErrBadAddress)}}
	}
	return &Future[V]{in: p.h.send(ctx, opNames[op], p.h.ops[op], p.h.hs[op], p.addr, args), decode: decode}
}

// element decodes a reply that holds one T.
func element[T Number](b []byte) (T, error) {
	if _, size := kindOf[T](); len(b) != size {
		return 0, fmt.Errorf("%w: reply of %d bytes, want %d", ErrBadSize, len(b), size)
	}
	return get[T](b), nil
}

func swapped(b []byte) (bool, error) {
	if len(b) != 1 {
		return false, fmt.Errorf("%w: CAS reply of %d bytes, want 1", ErrBadSize, len(b))
	}
	return b[0] == 1, nil
}

func nothing([]byte) (struct{}, error) { return struct{}{}, nil }

// ReadAsync starts a Read and returns at once; the Future's Wait returns
// what Read would have. Many in flight share packets to each rank.
func (p Ptr[T]) ReadAsync(ctx context.Context) *Future[T] {
	return async(ctx, p, opRead, p.args(), element[T])
}

// WriteAsync starts a Write and returns at once; the Future's Wait
// returns once the element holds v (or another delegate's later value).
func (p Ptr[T]) WriteAsync(ctx context.Context, v T) *Future[struct{}] {
	return async(ctx, p, opWrite, p.args(v), nothing)
}

// CompareAndSwapAsync starts a CompareAndSwap and returns at once; the
// Future's Wait reports whether it swapped.
func (p Ptr[T]) CompareAndSwapAsync(ctx context.Context, old, new T) *Future[bool] {
	return async(ctx, p, opCAS, p.args(old, new), swapped)
}

// FetchAndAddAsync starts a FetchAndAdd and returns at once; the
// Future's Wait returns what FetchAndAdd would have. Many in flight
// share packets to each rank.
func (p Ptr[T]) FetchAndAddAsync(ctx context.Context, delta T) *Future[T] {
	return async(ctx, p, opAdd, p.args(delta), element[T])
}
