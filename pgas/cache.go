package pgas

import (
	"context"
	"fmt"
)

// Mode says what a Cache is for.
type Mode uint8

const (
	// ReadOnly fetches the range at Acquire; Release writes nothing.
	ReadOnly Mode = 1 + iota
	// ReadWrite fetches the range at Acquire; Release writes all of it
	// back.
	ReadWrite
	// WriteOnly fetches nothing (the copy starts zeroed); Release writes
	// all of it.
	WriteOnly
)

// String returns the mode's name.
func (m Mode) String() string {
	switch m {
	case ReadOnly:
		return "read-only"
	case ReadWrite:
		return "read-write"
	case WriteOnly:
		return "write-only"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Cache is a local copy of a range of an Array, from Acquire until
// Release: Grappa's cache operations, which move a range as a few large
// messages rather than a delegate per element.
//
// Concurrency contract: a Cache belongs to one goroutine at a time;
// Data's elements are plain memory, which nothing else writes.
type Cache[T Number] struct {
	a        Array[T]
	start    int64
	mode     Mode
	data     []T
	pieces   []piece
	released bool
}

// Acquire copies elements [start, start+n) of a into local memory, for
// mode, and returns once the copy is complete (at once for WriteOnly).
// The range may span blocks on any number of ranks: Acquire sends one
// get per home rank and Config.CacheChunk bytes of the range there, all
// in flight at once, so that they share the packets to each rank, and
// gathers the replies.
//
// Each get runs at its home as one delegate does, so it copies every
// element whole and is atomic with respect to the delegates on its
// chunk; the gets are not atomic with one another, so with delegates
// writing the range meanwhile the copy may hold one element's value
// from before a write and another's from after. Nothing keeps the copy
// coherent: later delegates do not change it.
//
// A range outside the array fails with ErrBadAddress, a bad mode with
// ErrBadSize; when a home rank is lost, Acquire fails with an error
// wrapping comm.ErrPeerLost.
func (a Array[T]) Acquire(ctx context.Context, start, n int, mode Mode) (*Cache[T], error) {
	if err := a.checkRange(start, n, mode); err != nil {
		return nil, err
	}
	g := geometry{lay: a.h.lay, base: a.base, per: a.per, size: int64(a.size)}
	c := &Cache[T]{a: a, start: int64(start), mode: mode, data: make([]T, n),
		pieces: plan(g, int64(start), int64(n), a.h.cfg.CacheChunk)}
	if mode == WriteOnly {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return c, nil
	}
	if err := c.getAll(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// checkRange reports what is wrong with a cache of [start, start+n).
func (a Array[T]) checkRange(start, n int, mode Mode) error {
	switch {
	case a.h == nil:
		return fmt.Errorf("%w: Acquire of the zero Array", ErrBadAddress)
	case start < 0 || n < 0 || int64(start) > a.n-int64(n):
		return fmt.Errorf("%w: range of %d elements from %d, array of %d", ErrBadAddress, n, start, a.n)
	case mode < ReadOnly || mode > WriteOnly:
		return fmt.Errorf("%w: cache mode %v", ErrBadSize, mode)
	}
	return nil
}

// Data returns the local copy: element i is element Start()+i of the
// array. Writes to it reach the array at Release, in ReadWrite and
// WriteOnly modes.
func (c *Cache[T]) Data() []T { return c.data }

// Start returns the index in the array of the copy's first element.
func (c *Cache[T]) Start() int { return int(c.start) }

// Mode returns the mode the copy was acquired in.
func (c *Cache[T]) Mode() Mode { return c.mode }

// Release ends the cache. In ReadWrite and WriteOnly modes it writes
// every element of the copy back to its home, modified or not (there is
// no dirty tracking): it posts one put per home rank and CacheChunk
// bytes, then calls each home once, and returns when every home has
// stored its puts; ReadOnly sends nothing.
//
// Each put is atomic with respect to the delegates on its chunk, and no
// delegate sees a torn element; the puts are not atomic with one
// another. A write-back overwrites whatever delegates stored in the
// range since Acquire: ranks that write-back overlapping ranges, or
// update them with delegates meanwhile, must order themselves (a
// barrier), as in Grappa. This rank's delegates issued after Release
// returns see its values.
//
// Release ends the cache even when it fails, and a second Release fails
// with ErrBadAddress. When a home rank is lost, Release fails with an
// error wrapping comm.ErrPeerLost; it still waits for every home, so the
// live ones have stored their parts when it returns. When ctx ends
// first, Release returns ctx.Err() and the puts already sent may still
// be stored.
func (c *Cache[T]) Release(ctx context.Context) error {
	if c.released {
		return fmt.Errorf("%w: Release of a cache of elements [%d, %d) released before", ErrBadAddress, c.start, c.start+int64(len(c.data)))
	}
	c.released = true
	if c.mode == ReadOnly {
		return nil
	}
	return c.putAll(ctx)
}

// getAll starts a get of every remote piece at once, copies the local
// ones in place, then waits for all the remote ones, so that a lost rank
// fails its own pieces without leaving the others behind; it returns the
// first error in piece order.
func (c *Cache[T]) getAll(ctx context.Context) error {
	h := c.a.h
	ins := make([]inflight, len(c.pieces))
	name := c.verb(opGet)
	for k, p := range c.pieces {
		if p.rank != h.e.Rank() {
			args := appendGet(make([]byte, 0, getArgs), p.off, int(p.bytes))
			ins[k] = h.send(ctx, name, h.ops[opGet], h.hs[opGet], Addr{Rank: p.rank, Offset: p.off}, args)
		}
	}
	c.local(opGet)
	var first error
	for k, p := range c.pieces {
		if p.rank == h.e.Rank() {
			continue
		}
		b, err := ins[k].wait(ctx)
		switch {
		case err == nil && int64(len(b)) != p.bytes:
			err = fmt.Errorf("pgas: %s at %v: %w: reply of %d bytes, want %d", name, ins[k].addr, ErrBadSize, len(b), p.bytes)
		case err == nil:
			unpack(c.data, p, b, int64(c.a.size))
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

// local copies the pieces homed on this rank between the heap and the
// copy directly, each under the delegates' lock as a get or put would.
func (c *Cache[T]) local(op int) {
	h := c.a.h
	size := int64(c.a.size)
	for _, p := range c.pieces {
		if p.rank != h.e.Rank() {
			continue
		}
		h.lock()
		for _, s := range p.spans {
			c.copySpan(op, s.off, s.off+s.n*size, c.data[s.idx:s.idx+s.n])
		}
		h.mu.Unlock()
	}
}

// copySpan copies heap bytes [off, end) to data (opGet) or data to them,
// word by word where the word path may run beside it (wordrun.go). The
// caller holds the heap's lock.
func (c *Cache[T]) copySpan(op int, off, end int64, data []T) {
	h := c.a.h
	switch {
	case !wordsOK && op == opGet:
		fromBytes(data, h.mem[off:end])
	case !wordsOK:
		toBytes(h.mem[off:end], data)
	case op == opGet:
		h.loadRun(bytesOf(data), off)
	default:
		h.storeRun(off, bytesOf(data))
	}
}

// putAll posts the put of every remote piece, copies the local ones in
// place, then calls every home it posted to: the Call runs there after
// the Posts (am's per-source order), so its reply says they are stored,
// and one reply per home replaces one per piece. A put cannot fail at
// its home unless the ranks' Configs differ; am logs it there.
func (c *Cache[T]) putAll(ctx context.Context) error {
	h := c.a.h
	name := c.verb(opPut)
	homes := make(map[int]bool)
	var first error
	for _, p := range c.pieces {
		if p.rank == h.e.Rank() {
			continue
		}
		args := pack(make([]byte, 0, putHead+p.bytes), c.data, p, int64(c.a.size))
		err := h.e.Post(ctx, p.rank, h.ops[opPut], args)
		if err != nil && first == nil {
			in := inflight{name: name, addr: Addr{Rank: p.rank, Offset: p.off}}
			first = in.wrap(ctx, err)
		}
		homes[p.rank] = true
	}
	c.local(opPut)
	ins := make([]inflight, 0, len(homes))
	for r := range homes {
		ins = append(ins, h.send(ctx, name, h.ops[opFence], h.hs[opFence], Addr{Rank: r}, nil))
	}
	for i := range ins {
		if _, err := ins[i].wait(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// verb names a transfer in errors.
func (c *Cache[T]) verb(op int) string {
	what := "acquire"
	if op == opPut {
		what = "release"
	}
	return fmt.Sprintf("%s of elements [%d, %d)", what, c.start, c.start+int64(len(c.data)))
}
