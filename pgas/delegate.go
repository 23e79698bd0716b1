package pgas

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/plexus-hpc/plexus/am"
)

// op runs one of the built-in operations at p's home.
func (p Ptr[T]) op(ctx context.Context, op int, args []byte) ([]byte, error) {
	if p.h == nil {
		return nil, fmt.Errorf("%w: delegate on the zero Ptr", ErrBadAddress)
	}
	return p.do(ctx, opNames[op], p.h.ops[op], p.h.hs[op], args)
}

// do runs handler id with args at p's home: in place, under the same
// lock, when this rank is home, else as an am Call.
func (p Ptr[T]) do(ctx context.Context, name string, id am.ID, home am.Handler, args []byte) ([]byte, error) {
	if p.h == nil {
		return nil, fmt.Errorf("%w: delegate on the zero Ptr", ErrBadAddress)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var reply []byte
	var err error
	if p.addr.Rank == p.h.e.Rank() {
		reply, err = home(ctx, p.addr.Rank, args)
	} else {
		reply, err = p.h.e.Call(ctx, p.addr.Rank, id, args)
	}
	if err != nil && err != ctx.Err() {
		err = wrapOp(err, name, p.addr)
	}
	return reply, err
}

func (p Ptr[T]) args(operands ...T) []byte {
	b := make([]byte, header+len(operands)*p.size)
	b[0], b[1] = byte(p.k), byte(p.size)
	binary.LittleEndian.PutUint64(b[2:], uint64(p.addr.Offset))
	for i, v := range operands {
		put(b[header+i*p.size:header+(i+1)*p.size], v)
	}
	return b
}

// here reports whether p's delegates run on this rank's word path
// (word.go): one atomic instruction, in place, with no args encoded,
// no lock and no reply.
func (p Ptr[T]) here() bool {
	h := p.h
	return h != nil && p.addr.Rank == h.e.Rank() && isWord(p.addr.Offset, p.size) &&
		p.addr.Offset >= 0 && p.addr.Offset <= int64(len(h.mem)-p.size)
}

// hereReady is the start of a delegate on the word path: ctx's error,
// else the Adds pending here applied first (W2).
func (p Ptr[T]) hereReady(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p.h.settle()
	return nil
}

// Read returns the element.
func (p Ptr[T]) Read(ctx context.Context) (T, error) {
	if p.here() {
		if err := p.hereReady(ctx); err != nil {
			return 0, err
		}
		return fromBits[T](p.k, p.size, p.h.loadWord(p.addr.Offset, p.size)), nil
	}
	r, err := p.op(ctx, opRead, p.args())
	if err != nil {
		return 0, err
	}
	return get[T](r), nil
}

// Write sets the element to v.
func (p Ptr[T]) Write(ctx context.Context, v T) error {
	if p.here() {
		if err := p.hereReady(ctx); err != nil {
			return err
		}
		p.h.storeWord(p.addr.Offset, p.size, bitsOf(p.k, v))
		return nil
	}
	_, err := p.op(ctx, opWrite, p.args(v))
	return err
}

// CompareAndSwap sets the element to new if it holds old, comparing bit
// patterns, and reports whether it did.
func (p Ptr[T]) CompareAndSwap(ctx context.Context, old, new T) (bool, error) {
	if p.here() {
		if err := p.hereReady(ctx); err != nil {
			return false, err
		}
		return p.h.casWord(p.addr.Offset, p.size, bitsOf(p.k, old), bitsOf(p.k, new)), nil
	}
	r, err := p.op(ctx, opCAS, p.args(old, new))
	if err != nil {
		return false, err
	}
	return r[0] == 1, nil
}

// FetchAndAdd adds delta to the element and returns its value before.
// Integers wrap around as Go's do.
func (p Ptr[T]) FetchAndAdd(ctx context.Context, delta T) (T, error) {
	if p.here() {
		if err := p.hereReady(ctx); err != nil {
			return 0, err
		}
		return fromBits[T](p.k, p.size, p.h.addWord(p.k, p.addr.Offset, p.size, bitsOf(p.k, delta))), nil
	}
	r, err := p.op(ctx, opAdd, p.args(delta))
	if err != nil {
		return 0, err
	}
	return get[T](r), nil
}

// Add adds delta to the element without waiting for it: Heap.Quiet
// returns once it has been applied. An Add is ordered before the later
// delegates of this rank to the same home, blocking or not.
func (p Ptr[T]) Add(ctx context.Context, delta T) error {
	if p.h == nil {
		return fmt.Errorf("%w: Add on the zero Ptr", ErrBadAddress)
	}
	if p.addr.Rank == p.h.e.Rank() {
		return wrapOp(p.addHere(delta), "add", p.addr)
	}
	return wrapOp(p.h.e.Post(ctx, p.addr.Rank, p.h.ops[opAddPost], p.args(delta)), "add", p.addr)
}

// addHere is Add at its home: the Add joins the rank's pending local
// Adds (localadds.go), applied in batches, without an encoded message or
// a reply (GUPS at one rank runs on nothing else).
func (p Ptr[T]) addHere(delta T) error {
	h, off := p.h, p.addr.Offset
	if off < 0 || off > int64(len(h.mem)-p.size) {
		return fmt.Errorf("%w: %d bytes at offset %d, heap of %d", ErrBadAddress, p.size, off, len(h.mem))
	}
	a := localAdd{off: off, k: p.k, size: uint8(p.size)}
	put(a.delta[:p.size], delta)
	h.mu.Lock()
	h.pushAddLocked(a)
	h.mu.Unlock()
	return nil
}
