package pgas

import "sync/atomic"

// The Adds that reach a home, this rank's own and those other ranks post,
// are applied in batches. Applied one at a
// time each would be a lock, a load that misses the cache (a large heap is
// touched at random), a store and an unlock, and the lock's atomic
// instruction waits for the miss before it: one miss at a time. Queued
// and applied in a loop under one lock, the loads of a batch overlap.
//
// Invariants (all under Heap.mu): pending Adds are applied before any
// other delegate runs at this home (Heap.lock, which every home handler
// and local copy takes), so they are ordered before the later delegates
// of their rank, as Add promises, and no delegate of any rank sees the
// element without them once it runs; Quiet's fences apply them too, so
// Quiet returns with every Add of its rank applied.

// sink keeps the touching loop from being optimised away.
var sink atomic.Uint32

// addBatch is how many local Adds wait before they are applied.
const addBatch = 256

// localAdd is one pending Add at this home, from any rank.
type localAdd struct {
	off   int64
	k     kind
	size  uint8
	delta [8]byte
}

// pushAddLocked queues a, applying the batch once it is full. The caller
// holds h.mu.
func (h *Heap) pushAddLocked(a localAdd) {
	h.adds = append(h.adds, a)
	h.pending.Store(int32(len(h.adds)))
	if len(h.adds) >= addBatch {
		h.applyAddsLocked()
	}
}

// applyAddsLocked applies the pending Adds in order. The caller holds
// h.mu.
func (h *Heap) applyAddsLocked() {
	// Touch every element first in a loop of bare loads, which the
	// processor runs many at a time; the adds then find their lines in
	// the cache. The adds alone, a few dozen instructions each, keep too
	// few misses in flight.
	// Words are touched and added to atomically: the word path runs
	// beside this without the lock (word.go, W1).
	var touch uint64
	for i := range h.adds {
		if a := &h.adds[i]; isWord(a.off, int(a.size)) {
			touch += h.loadWord(a.off, int(a.size))
		} else {
			touch += uint64(h.mem[a.off])
		}
	}
	sink.Store(uint32(touch))
	for i := range h.adds {
		a := &h.adds[i]
		if size := int(a.size); isWord(a.off, size) {
			h.addWord(a.k, a.off, size, wordBits(a.delta[:], size))
		} else {
			add(a.k, h.mem[a.off:a.off+int64(a.size)], a.delta[:a.size])
		}
	}
	h.adds = h.adds[:0]
	h.pending.Store(0)
}

// lock takes the delegates' lock and applies the pending Adds: what
// every delegate and local copy at this home takes instead of h.mu.
func (h *Heap) lock() {
	h.mu.Lock()
	if len(h.adds) > 0 {
		h.applyAddsLocked()
	}
}
