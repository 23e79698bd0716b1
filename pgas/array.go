package pgas

import (
	"context"
	"fmt"
)

// Array is n elements of type T in the global heap, striped over the
// ranks block by block: element i is in linear block i/(Block/size of T).
// Its zero value is no array.
type Array[T Number] struct {
	h    *Heap
	base int64 // the same offset on every rank
	n    int64
	per  int64 // elements per block
	size int
	k    kind
}

// Alloc allocates n zeroed elements of type T on the global heap. It is
// collective: every rank calls it with the same n, in the same order
// with its other Allocs and Frees, and gets the same Array. It sends no
// message: each rank's allocator is deterministic, so symmetric calls
// give the same offset on every rank. It fails with ErrOutOfHeap,
// naming the sizes, when a rank's heap lacks room, and with ErrBadSize
// when n < 1 or T is larger than a block.
func Alloc[T Number](ctx context.Context, h *Heap, n int) (Array[T], error) {
	if err := ctx.Err(); err != nil {
		return Array[T]{}, err
	}
	if err := h.bound(); err != nil {
		return Array[T]{}, err
	}
	k, size := kindOf[T]()
	if n < 1 || int64(size) > h.cfg.Block {
		return Array[T]{}, fmt.Errorf("%w: %d elements of %d bytes, blocks of %d", ErrBadSize, n, size, h.cfg.Block)
	}
	a := Array[T]{h: h, n: int64(n), per: h.cfg.Block / int64(size), size: size, k: k}
	blocks := a.n/a.per + min(a.n%a.per, 1)
	// Each rank holds its share of the blocks; counted in blocks, since
	// the bytes of a huge n would overflow and wrap to a small size.
	ranks := int64(h.lay.Ranks)
	share := blocks/ranks + min(blocks%ranks, 1)
	if share > h.cfg.HeapBytes/h.cfg.Block {
		return Array[T]{}, fmt.Errorf("%w: alloc of %d elements of %d bytes needs %d blocks of %d bytes on each rank, the heap has %d",
			ErrOutOfHeap, n, size, share, h.cfg.Block, h.cfg.HeapBytes/h.cfg.Block)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	base, err := h.alloc.alloc(share * h.cfg.Block)
	if err != nil {
		return Array[T]{}, fmt.Errorf("pgas: alloc of %d elements of %d bytes: %w", n, size, err)
	}
	a.base = base
	return a, nil
}

// Free returns a's memory to the heap. It is collective, like Alloc,
// and no delegate may use a once any rank has called Free.
func (a Array[T]) Free(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if a.h == nil {
		return fmt.Errorf("%w: Free of the zero Array", ErrBadAddress)
	}
	h := a.h
	h.lock() // pending Adds land before the memory is cleared
	defer h.mu.Unlock()
	n, ok := h.alloc.used[a.base]
	if err := h.alloc.release(a.base); err != nil {
		return err
	}
	if ok {
		clear(h.mem[a.base : a.base+n]) // zero now, so that Alloc need not race with early delegates
	}
	return nil
}

// Len returns the number of elements.
func (a Array[T]) Len() int { return int(a.n) }

// At returns a pointer to element i. i outside [0, Len()) panics, as
// indexing a slice does.
func (a Array[T]) At(i int) Ptr[T] {
	if i < 0 || int64(i) >= a.n {
		panic(fmt.Sprintf("pgas: index %d out of range [0, %d)", i, a.n))
	}
	// Element i is in the array's block b, at the same place in it. The
	// array starts at a whole linear block, a.base on every rank, so
	// block b is on rank b mod Ranks, as that rank's block b div Ranks
	// after a.base: Layout.Home of the element's linear address, in two
	// divisions instead of six (At is on every delegate's path).
	b := int64(i) / a.per
	in := int64(i) - b*a.per
	r := int64(a.h.lay.Ranks)
	off := a.base + b/r*a.h.cfg.Block + in*int64(a.size)
	return Ptr[T]{h: a.h, addr: Addr{Rank: int(b % r), Offset: off}, size: a.size, k: a.k}
}

// Ptr is a typed global pointer: the address of one T in the global
// heap. Its methods are the delegates, which run at the element's home
// rank. Its zero value points nowhere.
type Ptr[T Number] struct {
	h    *Heap
	addr Addr
	size int
	k    kind
}

// PtrAt returns a pointer to the T at a, which must lie inside the heap
// of a rank of the world; otherwise it fails with ErrBadAddress.
func PtrAt[T Number](h *Heap, a Addr) (Ptr[T], error) {
	if err := h.bound(); err != nil {
		return Ptr[T]{}, err
	}
	k, size := kindOf[T]()
	if a.Rank < 0 || a.Rank >= h.lay.Ranks || a.Offset < 0 || a.Offset > h.cfg.HeapBytes-int64(size) {
		return Ptr[T]{}, fmt.Errorf("%w: %d bytes at %v, %d ranks with heaps of %d", ErrBadAddress, size, a, h.lay.Ranks, h.cfg.HeapBytes)
	}
	return Ptr[T]{h: h, addr: a, size: size, k: k}, nil
}

// Addr returns where p points.
func (p Ptr[T]) Addr() Addr { return p.addr }
