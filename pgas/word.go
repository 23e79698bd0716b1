package pgas

import (
	"encoding/binary"
	"math"
	"sync/atomic"
	"unsafe"
)

// The word path. An element of 4 or 8 bytes whose offset is a multiple
// of its size (every element of an Array is: blocks start at multiples
// of Block, elements at multiples of their size within a block) is a
// word: every delegate on it, at its home, is one hardware atomic
// instruction on the heap's memory — Read a load, Write a store,
// CompareAndSwap a compare-and-swap, FetchAndAdd and Add an atomic add
// (a compare-and-swap loop for floats), Call a load, f, and a
// compare-and-swap, retried until no other delegate changed the word in
// between. The handlers of other ranks' delegates and the calling rank's
// own delegates on its home words run the same instructions, so a word's
// delegates are atomic with respect to one another without the heap's
// lock, and a delegate homed on the calling rank costs an atomic
// instruction rather than an args encoding, the lock and a reply.
//
// Everything else (elements of 1 or 2 bytes, elements at offsets that
// are not multiples of their size, machines that do not store numbers
// little-endian as the heap does) takes the lock path: the home's lock,
// as before. Runs of cache gets and puts read and write their 4- and
// 8-byte aligned words with atomic loads and stores, under the lock, so
// neither path ever sees an element torn by the other.
//
// Invariants:
//
//	W1. A word is only ever accessed by atomic instructions (under the
//	    lock or not); the lock path's plain accesses touch only
//	    elements that are not words.
//	W2. pending is the number of Adds queued at this home and not yet
//	    applied (localadds.go); it is changed only under the lock. A
//	    word delegate that loads pending != 0 takes the lock, which
//	    applies them, before its instruction, so it never runs before an
//	    Add that reached this home ahead of it (the order Add promises).

// wordsOK is whether the word path may run on this machine: its atomic
// instructions read the heap's little-endian bytes as the number they
// hold only where the machine stores numbers the same way.
var wordsOK = littleEndian

// isWord reports whether an element of size bytes at offset off is a
// word; off is checked against the heap by the caller.
func isWord(off int64, size int) bool {
	return wordsOK && (size == 8 || size == 4) && off%int64(size) == 0
}

// heapWords returns n bytes of zeroed memory aligned to 8, so that
// element offsets that are multiples of 8 are aligned addresses.
func heapWords(n int64) []byte {
	if n <= 0 {
		return []byte{}
	}
	w := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), n)
}

func (h *Heap) w32(off int64) *uint32 { return (*uint32)(unsafe.Pointer(&h.mem[off])) }
func (h *Heap) w64(off int64) *uint64 { return (*uint64)(unsafe.Pointer(&h.mem[off])) }

// settle applies the Adds pending at this home before a word delegate
// (W2).
func (h *Heap) settle() {
	if h.pending.Load() != 0 {
		h.lock()
		h.mu.Unlock()
	}
}

// loadWord atomically loads the word of size bytes at off.
func (h *Heap) loadWord(off int64, size int) uint64 {
	if size == 8 {
		return atomic.LoadUint64(h.w64(off))
	}
	return uint64(atomic.LoadUint32(h.w32(off)))
}

// storeWord atomically stores v's low size bytes at off.
func (h *Heap) storeWord(off int64, size int, v uint64) {
	if size == 8 {
		atomic.StoreUint64(h.w64(off), v)
		return
	}
	atomic.StoreUint32(h.w32(off), uint32(v))
}

// casWord compares the word at off with old's bits and swaps in new's.
func (h *Heap) casWord(off int64, size int, old, new uint64) bool {
	if size == 8 {
		return atomic.CompareAndSwapUint64(h.w64(off), old, new)
	}
	return atomic.CompareAndSwapUint32(h.w32(off), uint32(old), uint32(new))
}

// addWord adds delta (bits of kind k) to the word at off and returns the
// bits before. Integers wrap; floats add in a compare-and-swap loop.
func (h *Heap) addWord(k kind, off int64, size int, delta uint64) uint64 {
	switch {
	case k == kindInt && size == 8:
		return atomic.AddUint64(h.w64(off), delta) - delta
	case k == kindInt:
		return uint64(atomic.AddUint32(h.w32(off), uint32(delta)) - uint32(delta))
	}
	for {
		old := h.loadWord(off, size)
		if h.casWord(off, size, old, addBits(k, old, delta)) {
			return old
		}
	}
}

// addBits returns the bits of a + d, both floats of kind k.
func addBits(k kind, a, d uint64) uint64 {
	if k == kindFloat32 {
		return uint64(math.Float32bits(math.Float32frombits(uint32(a)) + math.Float32frombits(uint32(d))))
	}
	return math.Float64bits(math.Float64frombits(a) + math.Float64frombits(d))
}

// wordBits reads size little-endian bytes of b as a word's bits.
func wordBits(b []byte, size int) uint64 {
	if size == 8 {
		return binary.LittleEndian.Uint64(b)
	}
	return uint64(binary.LittleEndian.Uint32(b))
}

// appendWord appends a word's size bytes to b, little-endian.
func appendWord(b []byte, size int, v uint64) []byte {
	if size == 8 {
		return binary.LittleEndian.AppendUint64(b, v)
	}
	return binary.LittleEndian.AppendUint32(b, uint32(v))
}

// bitsOf returns v's bit pattern as the heap stores it, in a word.
func bitsOf[T Number](k kind, v T) uint64 {
	switch k {
	case kindFloat32:
		return uint64(math.Float32bits(float32(v)))
	case kindFloat64:
		return math.Float64bits(float64(v))
	}
	return uint64(int64(v))
}

// fromBits returns the T whose bit pattern, size bytes of kind k, is u.
func fromBits[T Number](k kind, size int, u uint64) T {
	switch k {
	case kindFloat32:
		return T(math.Float32frombits(uint32(u)))
	case kindFloat64:
		return T(math.Float64frombits(u))
	}
	shift := 64 - 8*size
	return T(int64(u<<shift) >> shift)
}
