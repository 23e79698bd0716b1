// Package pgas is Grappa's global address space over package am: every
// rank holds a heap, and delegates read and update any element of it at
// the element's home rank.
//
// Every rank makes its heap before its am engine, registers the same
// Funcs, then binds the two:
//
//	var reg am.Registry
//	h, err := pgas.New(&reg, pgas.Config{})
//	double, err := pgas.RegisterFunc(h, "double", func(v int64, _ []byte) (int64, []byte, error) {
//		return 2 * v, nil, nil
//	})
//	e, err := am.New(ctx, w, &reg, am.Config{})
//	err = h.Bind(e)
//	counts, err := pgas.Alloc[int64](ctx, h, 1000) // collective: every rank
//	old, err := counts.At(42).FetchAndAdd(ctx, 1)  // runs at element 42's home
//
// # Addresses
//
// An Addr is two-dimensional: a rank and a byte offset in its heap. The
// heap is also one linear address space striped block-cyclic over the
// ranks (Layout): block b of Config.Block bytes (64 by default) lives on
// rank b mod ranks. An Array[T] occupies consecutive linear blocks, so
// its elements spread evenly, a block's worth on each rank in turn; an
// element never straddles two blocks. Elements are fixed-size numbers
// (Number): no pointer crosses ranks.
//
// Alloc and Free are collective: every rank calls them with the same
// arguments in the same order. They send no message, because each
// rank's allocator is deterministic (first fit on block boundaries), so
// the same calls give the same offset on every rank: allocations are
// symmetric. Alloc beyond a rank's heap fails with ErrOutOfHeap naming
// the requested, free and heap sizes. Free zeroes the memory, so a new
// Array starts at zero even if another rank reaches it first.
//
// # Delegates
//
// The methods of Ptr are Grappa's delegates: Read, Write,
// CompareAndSwap, FetchAndAdd and Call (a Func registered by name on
// every rank, applied to the element) run at the element's home rank as
// one am handler each, and each is atomic with respect to every other
// delegate on the same element. An element of 4 or 8 bytes at an offset
// that is a multiple of its size (every element of an Array) is a word:
// at its home every delegate on it, from any rank, is a hardware atomic
// instruction on the home's memory (FetchAndAdd and Add an atomic add,
// or a compare-and-swap loop for floats; Call a compare-and-swap loop),
// and a delegate on a word homed on the calling rank runs in place, with
// no message, no lock and no reply: a local CompareAndSwap costs the
// pointer's address arithmetic and one atomic instruction
// (BenchmarkLocalCAS compares it with the lock's path and with
// sync/atomic). Every other delegate (1- and 2-byte elements,
// elements at odd offsets) runs under one lock of its home rank. Both
// hold on machines that store numbers little-endian, as the heap does;
// elsewhere every delegate takes the lock.
//
// The blocking forms wait for the home's reply. The async forms,
// ReadAsync, WriteAsync, CompareAndSwapAsync and FetchAndAddAsync, send
// the delegate and return a Future to Wait on; many in flight share
// packets. Add posts an increment with no reply; Heap.Quiet returns once
// every Add made before it has been applied. A rank's delegates to one
// home run there in the order this rank issued them (am's per-source
// order), async or not. A home applies the Adds that reach it in batches,
// before any other delegate runs there, so no delegate ever sees an
// element without an Add that reached its home before it; batching lets
// the processor fetch many elements of a large heap at once, where one
// at a time each fetch waits for the last. A heap of a few MiB or more
// also asks Linux for transparent huge pages (madvise), since delegates
// touch it at random.
//
// # Cache
//
// Array.Acquire copies a range of an array, which may span blocks on
// every rank, into local memory, and Cache.Release ends it:
//
//	c, err := counts.Acquire(ctx, 0, counts.Len(), pgas.ReadWrite)
//	for i := range c.Data() {
//		c.Data()[i] *= 2 // plain memory: no message
//	}
//	err = c.Release(ctx) // writes the whole range back
//
// ReadOnly fetches the range and writes nothing back; ReadWrite fetches
// it and writes all of it back at Release; WriteOnly fetches nothing
// (the copy starts zeroed) and writes all of it. Transfers go as one
// get or put per home rank and Config.CacheChunk bytes (8 KiB by
// default), all in flight at once, rather than a delegate per element;
// Release posts its puts and waits for one reply per home.
//
// Each get or put runs at its home under the lock of the delegates
// there, so it is atomic with respect to the lock's delegates on its
// chunk; word delegates may run beside it, and it reads and writes each
// word whole, so no element is ever torn. Different chunks are not
// atomic with one another. The cache is not coherent: delegates after Acquire do not
// change the copy, and Release overwrites whatever they stored in the
// range since. Ranks that cache overlapping ranges for writing, or
// update a range that another rank caches, order themselves with a
// barrier, as Grappa's programs do. Once Release returns, this rank's
// later delegates see its values.
//
// # Errors
//
// An address outside the heap (PtrAt), a range outside the array
// (Acquire) or a malformed delegate fails with ErrBadAddress or
// ErrBadSize at the caller; At with an index out of range panics, as
// slice indexing does. When the home rank is lost, its delegates, and
// Acquires and Releases of ranges on it, fail with an error wrapping
// comm.ErrPeerLost.
package pgas
