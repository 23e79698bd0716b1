package agree

import (
	"maps"
	"math/bits"
	"slices"
)

// slots maps slot numbers to values, for the per-slot state of a
// replica (learned, accepted, proposed): in the normal case its slots
// are dense and move forward, so it keeps them in a ring indexed by slot
// — a lookup is a mask and a load, where a map hashes and probes on
// every decision — and puts the rare slot far from the others in a map.
//
// Invariants:
//
//	W1 the ring covers the window [lo, lo+len(ring)): slot s of it, if
//	   present, is in ring[s & (len(ring)-1)] (len(ring) a power of two,
//	   or 0 before the first put);
//	W2 a present slot outside the window is in far, never in the ring;
//	W3 n counts the present slots of the ring;
//	W4 the ring is rebuilt only to span at most 4*(n+1) slots from its
//	   first present one to its last (or up to minRing), so a slot far
//	   from the others (a laggard learns a recent accept, a message with
//	   a wild slot) costs one map entry, not a ring as long as the gap.
//
// The zero value is empty and ready. mapSlots in slots_test.go is its
// reference twin.
type slots[T any] struct {
	lo   uint64
	ring []cell[T]
	n    int
	far  map[uint64]T
}

type cell[T any] struct {
	v  T
	ok bool
}

const (
	// minRing is the smallest ring, and the size up to which it grows
	// whatever its fill.
	minRing = 64
	// maxRingSlot bounds the slots the window covers, so that its
	// arithmetic cannot wrap: a slot above it (no real log reaches it)
	// stays in far.
	maxRingSlot = 1 << 62
)

// get returns the value of slot s and whether it is present.
func (w *slots[T]) get(s uint64) (T, bool) {
	if w.inRing(s) {
		c := &w.ring[s&w.mask()]
		return c.v, c.ok
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
	c := &w.ring[s&w.mask()]
	if !c.ok {
		w.n++
	}
	c.v, c.ok = v, true
}

// del removes slot s. Removing the window's first slot moves the window
// past the absent slots after it, so that a table whose slots leave in
// order (the leader's proposals) keeps a short ring.
func (w *slots[T]) del(s uint64) {
	if !w.inRing(s) {
		delete(w.far, s)
		return
	}
	c := &w.ring[s&w.mask()]
	if !c.ok {
		return
	}
	*c = cell[T]{}
	w.n--
	if s == w.lo {
		w.skipAbsent()
	}
}

// size returns the number of present slots.
func (w *slots[T]) size() int { return w.n + len(w.far) }

// forget removes every slot up to and including upto; the window starts
// after it.
func (w *slots[T]) forget(upto uint64) {
	for s := w.lo; s <= upto && w.inRing(s); s++ {
		if c := &w.ring[s&w.mask()]; c.ok {
			*c = cell[T]{}
			w.n--
		}
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
	for i := range uint64(len(w.ring)) {
		if c := &w.ring[(w.lo+i)&w.mask()]; c.ok {
			f(w.lo+i, &c.v)
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

func (w *slots[T]) mask() uint64 { return uint64(len(w.ring)) - 1 }

func (w *slots[T]) inRing(s uint64) bool { return s >= w.lo && s-w.lo < uint64(len(w.ring)) }

// makeRoom brings slot s into the window if W4 allows it: by moving an
// empty window to s, or by rebuilding the ring around its present slots
// and s. It reports whether s is in the window afterwards.
func (w *slots[T]) makeRoom(s uint64) bool {
	if s > maxRingSlot {
		return false
	}
	if len(w.ring) == 0 {
		w.ring = make([]cell[T], minRing)
	}
	if w.n == 0 {
		w.moveTo(s)
		return w.inRing(s)
	}
	lo, end := w.span()
	lo, end = min(lo, s), max(end, s+1)
	if end-lo > 4*uint64(w.n+1) && end-lo > minRing {
		return false
	}
	w.rebuild(lo, max(minRing, 1<<bits.Len64(end-lo-1)))
	return w.inRing(s)
}

// span returns the ring's first present slot and the one after its last
// (the ring holds some).
func (w *slots[T]) span() (lo, end uint64) {
	lo, end = w.lo, w.lo+uint64(len(w.ring))
	for !w.ring[lo&w.mask()].ok {
		lo++
	}
	for !w.ring[(end-1)&w.mask()].ok {
		end--
	}
	return lo, end
}

// rebuild moves the ring's slots into a ring of size cells (a power of
// two) whose window starts at lo and covers them all, and takes in the
// far slots the window then covers.
func (w *slots[T]) rebuild(lo uint64, size int) {
	old, oldLo, oldMask := w.ring, w.lo, w.mask()
	w.ring, w.lo = make([]cell[T], size), lo
	for i := range uint64(len(old)) {
		if c := old[(oldLo+i)&oldMask]; c.ok {
			w.ring[(oldLo+i)&w.mask()] = c
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
	for !w.ring[lo&w.mask()].ok {
		lo++
	}
	w.moveTo(lo)
}

// moveTo makes lo the window's first slot; the ring must hold no slot
// below lo, nor at or past lo+len(ring) (the slots the window leaves).
func (w *slots[T]) moveTo(lo uint64) {
	if w.n > 0 && lo > w.lo+uint64(len(w.ring)) {
		panic("agree: slots window moved past present slots")
	}
	w.lo = lo
	if len(w.far) > 0 {
		w.takeFar()
	}
}

// takeFar moves the far slots the window covers into the ring (W2).
func (w *slots[T]) takeFar() {
	for _, s := range slices.Sorted(maps.Keys(w.far)) {
		if w.inRing(s) {
			w.ring[s&w.mask()] = cell[T]{v: w.far[s], ok: true}
			w.n++
			delete(w.far, s)
		}
	}
}
