package agree

import (
	"math/bits"
	"slices"
)

// slots maps slot numbers to values, for the per-slot state of a
// replica (learned, accepted, proposed): in the normal case its slots
// are dense and move forward, so it keeps them in a ring indexed by slot
// — a lookup is a mask and a load, where a map hashes and probes on
// every decision — and puts the rare slot far from the others in a map.
// Which cells of the ring hold a slot is a bitmap beside it, so that
// forgetting the slots of a compaction clears a word per 64 slots
// instead of visiting every cell.
//
// Invariants:
//
//	W1 the ring covers the window [lo, lo+len(vals)): slot s of it is
//	   present iff bit s&mask of bits is set, and then its value is
//	   vals[s&mask] (len(vals) a power of two, at least minRing, or 0
//	   before the first put; mask = len(vals)-1);
//	W2 a present slot outside the window is in far, never in the ring;
//	W3 n counts the set bits;
//	W4 the ring is rebuilt only to span at most 4*(size()+1) slots from
//	   its first present one to its last (or up to minRing), so a slot
//	   far from the others (a laggard learns a recent accept, a message
//	   with a wild slot) costs one map entry, not a ring as long as the
//	   gap; counting the far slots too, a run of slots that fills such
//	   a gap (the laggard catches up) goes to far only until it is dense
//	   enough for the ring to span it, and the ring takes the far slots
//	   in whenever it is rebuilt with room for them;
//	W5 a cell whose bit is clear may still hold the value of a slot
//	   forgotten there (forget clears bits only), until the cell is
//	   used again: the ring keeps at most len(vals) such values alive.
//
// The zero value is empty and ready. mapSlots in slots_test.go is its
// reference twin.
type slots[T any] struct {
	lo   uint64
	vals []T
	bits []uint64
	n    int
	far  map[uint64]T
}

const (
	// minRing is the smallest ring, and the size up to which it grows
	// whatever its fill; a multiple of 64, so that a word of bits covers
	// 64 consecutive slots.
	minRing = 64
	// maxRingSlot bounds the slots the window covers, so that its
	// arithmetic cannot wrap: a slot above it (no real log reaches it)
	// stays in far.
	maxRingSlot = 1 << 62
)

// get returns the value of slot s and whether it is present.
func (w *slots[T]) get(s uint64) (T, bool) {
	if w.inRing(s) {
		if i := s & w.mask(); w.bits[i>>6]&(1<<(i&63)) != 0 {
			return w.vals[i], true
		}
		var zero T
		return zero, false
	}
	v, ok := w.far[s]
	return v, ok
}

// has reports whether slot s is present.
func (w *slots[T]) has(s uint64) bool {
	_, ok := w.get(s)
	return ok
}

// put sets slot s to v.
func (w *slots[T]) put(s uint64, v T) {
	if !w.inRing(s) && !w.makeRoom(s) {
		if w.far == nil {
			w.far = map[uint64]T{}
		}
		w.far[s] = v
		return
	}
	i := s & w.mask()
	if b := &w.bits[i>>6]; *b&(1<<(i&63)) == 0 {
		*b |= 1 << (i & 63)
		w.n++
	}
	w.vals[i] = v
}

// del removes slot s. Removing the window's first slot moves the window
// past the absent slots after it, so that a table whose slots leave in
// order (the leader's proposals) keeps a short ring.
func (w *slots[T]) del(s uint64) {
	if !w.inRing(s) {
		delete(w.far, s)
		return
	}
	i := s & w.mask()
	b := &w.bits[i>>6]
	if *b&(1<<(i&63)) == 0 {
		return
	}
	*b &^= 1 << (i & 63)
	w.n--
	var zero T
	w.vals[i] = zero
	if s == w.lo {
		w.skipAbsent()
	}
}

// size returns the number of present slots.
func (w *slots[T]) size() int { return w.n + len(w.far) }

// forget removes every slot up to and including upto; the window starts
// after it.
func (w *slots[T]) forget(upto uint64) {
	if upto >= w.lo && len(w.vals) > 0 {
		w.clearBits(w.lo, min(upto, w.lo+uint64(len(w.vals))-1))
	}
	for s := range w.far {
		if s <= upto {
			delete(w.far, s)
		}
	}
	if upto >= w.lo {
		w.moveTo(min(upto, maxRingSlot) + 1)
	}
}

// clearBits marks the window's slots from..to (inclusive) absent, a
// word of bits at a time (a word's 64 slots are consecutive: the ring's
// length is a multiple of 64).
func (w *slots[T]) clearBits(from, to uint64) {
	for s := from; s <= to; {
		i := s & w.mask()
		k := min(64-i&63, to-s+1)
		m := ^uint64(0) >> (64 - k) << (i & 63)
		w.n -= bits.OnesCount64(w.bits[i>>6] & m)
		w.bits[i>>6] &^= m
		s += k
	}
}

// each calls f with every present slot in increasing order and a
// pointer to its value, which f may change; f must not add or remove
// slots.
func (w *slots[T]) each(f func(s uint64, v *T)) {
	var below, above []uint64
	for s := range w.far {
		if s < w.lo {
			below = append(below, s)
		} else {
			above = append(above, s)
		}
	}
	w.eachFar(below, f)
	for d := range uint64(len(w.vals)) {
		if i := (w.lo + d) & w.mask(); w.bits[i>>6]&(1<<(i&63)) != 0 {
			f(w.lo+d, &w.vals[i])
		}
	}
	w.eachFar(above, f)
}

func (w *slots[T]) eachFar(ss []uint64, f func(s uint64, v *T)) {
	slices.Sort(ss)
	for _, s := range ss {
		v := w.far[s]
		f(s, &v)
		w.far[s] = v
	}
}

func (w *slots[T]) mask() uint64 { return uint64(len(w.vals)) - 1 }

func (w *slots[T]) inRing(s uint64) bool { return s >= w.lo && s-w.lo < uint64(len(w.vals)) }

// present reports whether the window's slot s is present.
func (w *slots[T]) present(s uint64) bool {
	i := s & w.mask()
	return w.bits[i>>6]&(1<<(i&63)) != 0
}

// makeRoom brings slot s into the window if W4 allows it: by moving an
// empty window to s, or by rebuilding the ring around its present slots
// and s. It reports whether s is in the window afterwards.
func (w *slots[T]) makeRoom(s uint64) bool {
	if s > maxRingSlot {
		return false
	}
	if len(w.vals) == 0 {
		w.vals, w.bits = make([]T, minRing), make([]uint64, minRing/64)
	}
	if w.n == 0 {
		w.moveTo(s)
		return w.inRing(s)
	}
	lo, end := w.span()
	lo, end = min(lo, s), max(end, s+1)
	limit := max(minRing, 4*uint64(w.size()+1))
	if end-lo > limit {
		return false
	}
	if flo, fend, ok := w.farSpan(); ok && max(end, fend)-min(lo, flo) <= limit {
		lo, end = min(lo, flo), max(end, fend) // room for the far slots too
	}
	w.rebuild(lo, max(minRing, 1<<bits.Len64(end-lo-1)))
	return w.inRing(s)
}

// farSpan returns the first far slot and the one after the last, if
// there are far slots the ring could hold (at most maxRingSlot).
func (w *slots[T]) farSpan() (lo, end uint64, ok bool) {
	for s := range w.far {
		if s <= maxRingSlot {
			lo, end = min(lo, s), max(end, s+1)
			if !ok {
				lo, end, ok = s, s+1, true
			}
		}
	}
	return lo, end, ok
}

// span returns the ring's first present slot and the one after its last
// (the ring holds some).
func (w *slots[T]) span() (lo, end uint64) {
	lo, end = w.lo, w.lo+uint64(len(w.vals))
	for !w.present(lo) {
		lo++
	}
	for !w.present(end - 1) {
		end--
	}
	return lo, end
}

// rebuild moves the ring's slots into a ring of size cells (a power of
// two) whose window starts at lo and covers them all, and takes in the
// far slots the window then covers.
func (w *slots[T]) rebuild(lo uint64, size int) {
	old := *w
	w.vals, w.bits, w.lo = make([]T, size), make([]uint64, size/64), lo
	for d := range uint64(len(old.vals)) {
		if s := old.lo + d; old.present(s) {
			i := s & w.mask()
			w.vals[i] = old.vals[s&old.mask()]
			w.bits[i>>6] |= 1 << (i & 63)
		}
	}
	w.takeFar()
}

// skipAbsent moves the window's start past its absent first slots, up
// to the last present one (the ring is then empty or starts with a
// present slot).
func (w *slots[T]) skipAbsent() {
	if w.n == 0 {
		return
	}
	lo := w.lo
	for !w.present(lo) {
		lo++
	}
	w.moveTo(lo)
}

// moveTo makes lo the window's first slot; the ring must hold no slot
// below lo, nor at or past lo+len(vals) (the slots the window leaves).
func (w *slots[T]) moveTo(lo uint64) {
	if w.n > 0 && lo > w.lo+uint64(len(w.vals)) {
		panic("agree: slots window moved past present slots")
	}
	w.lo = lo
	if len(w.far) > 0 {
		w.takeFar()
	}
}

// takeFar moves the far slots the window covers into the ring (W2).
func (w *slots[T]) takeFar() {
	for s, v := range w.far {
		if w.inRing(s) {
			i := s & w.mask()
			w.vals[i] = v
			w.bits[i>>6] |= 1 << (i & 63)
			w.n++
			delete(w.far, s)
		}
	}
}
