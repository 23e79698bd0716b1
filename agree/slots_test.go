package agree

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// mapSlots is the reference twin of slots: the same operations on a
// plain map.
type mapSlots map[uint64]int

func (m mapSlots) forget(upto uint64) {
	for s := range m {
		if s <= upto {
			delete(m, s)
		}
	}
}

func (m mapSlots) each(f func(s uint64, v int)) {
	for _, s := range slices.Sorted(maps.Keys(m)) {
		f(s, m[s])
	}
}

// TestSlotsTwin drives slots and mapSlots with the same random
// operations — slots in order and out of it, gaps, far jumps, wild
// slots, removals from the front and the middle, forgetting — and
// compares every slot's value, the size and the ordered walk after
// each one.
func TestSlotsTwin(t *testing.T) {
	for seed := range uint64(16) {
		rnd := rand.New(rand.NewPCG(seed, 7))
		var w slots[int]
		ref := mapSlots{}
		next := uint64(1)
		for op := range 2000 {
			s := slotFor(rnd, next)
			next = max(next, min(s+1, next+1000))
			switch r := rnd.IntN(100); {
			case r < 55:
				w.put(s, op)
				ref[s] = op
			case r < 80:
				w.del(s)
				delete(ref, s)
			case r < 85:
				first := slices.Min(append(slices.Collect(maps.Keys(ref)), next))
				w.del(first)
				delete(ref, first)
			case r < 88:
				upto := next - uint64(rnd.IntN(300))
				w.forget(upto)
				ref.forget(upto)
			case r < 92:
				w.each(func(s uint64, v *int) { *v++ })
				for s := range ref {
					ref[s]++
				}
			}
			checkTwin(t, seed, op, &w, ref, s)
		}
	}
}

// slotFor draws a slot near next (most often just behind or at it),
// sometimes far below or ahead, or wild.
func slotFor(rnd *rand.Rand, next uint64) uint64 {
	switch r := rnd.IntN(100); {
	case r < 70:
		return next - min(next-1, uint64(rnd.IntN(80)))
	case r < 85:
		return next + uint64(rnd.IntN(300))
	case r < 95:
		return next + 1e6 + uint64(rnd.IntN(10))
	case r < 98:
		return uint64(rnd.IntN(int(next)) + 1)
	}
	return math.MaxUint64 - uint64(rnd.IntN(3))
}

func checkTwin(t *testing.T, seed uint64, op int, w *slots[int], ref mapSlots, s uint64) {
	t.Helper()
	for _, k := range append(slices.Collect(maps.Keys(ref)), s, s+1, s-1, w.lo, w.lo+uint64(len(w.vals))) {
		v, ok := w.get(k)
		rv, rok := ref[k]
		if ok != rok || v != rv || w.has(k) != rok {
			t.Fatalf("seed %d op %d: slot %d is (%d, %v), want (%d, %v)", seed, op, k, v, ok, rv, rok)
		}
	}
	if w.size() != len(ref) {
		t.Fatalf("seed %d op %d: size %d, want %d", seed, op, w.size(), len(ref))
	}
	var got, want []uint64
	w.each(func(s uint64, v *int) { got = append(got, s, uint64(*v)) })
	ref.each(func(s uint64, v int) { want = append(want, s, uint64(v)) })
	if !slices.Equal(got, want) {
		t.Fatalf("seed %d op %d: walk %v, want %v", seed, op, got, want)
	}
}

// TestSlotsStayDense checks W4's purpose: a table whose slots come and
// go in order keeps a ring about as long as the slots it holds, and a
// wild slot goes to the map.
func TestSlotsStayDense(t *testing.T) {
	var w slots[int]
	for s := uint64(1); s <= 100_000; s++ {
		w.put(s, 1)
		if s > 50 {
			w.del(s - 50) // 50 in flight, leaving in order
		}
	}
	w.put(1<<40, 1)
	if len(w.vals) > 2*minRing || len(w.far) != 1 || w.size() != 51 {
		t.Errorf("ring of %d cells, %d far, %d slots: want at most %d, 1, 51", len(w.vals), len(w.far), w.size(), 2*minRing)
	}
}

// TestSettledValues: values added out of order are kept in slot order,
// and the ones up to a slot are the prefix dropped.
func TestSettledValues(t *testing.T) {
	var sv settledValues
	for _, s := range []uint64{5, 3, 9, 7} {
		sv.add(s, []byte{byte(s)})
	}
	if k := sv.upTo(6); k != 2 {
		t.Fatalf("upTo(6) = %d, want 2 (slots 3, 5)", k)
	}
	sv.drop(sv.upTo(6))
	if len(sv) != 2 || sv[0].Slot != 7 || sv[1].Slot != 9 || sv[0].Value[0] != 7 || sv.upTo(6) != 0 {
		t.Errorf("after dropping slots up to 6: %v, want slots 7 and 9", sv)
	}
}

// TestSlotsLaggardCatchUp: a replica that learned a recent slot first
// and then fills the gap below it in order (a laggard catching up)
// holds the run in the ring, not in the map, once the ring next grows.
func TestSlotsLaggardCatchUp(t *testing.T) {
	var w slots[int]
	w.put(10_000, 1)
	for s := uint64(1); s < 10_000; s++ {
		w.put(s, 1)
	}
	for s := uint64(10_001); len(w.far) > 0 && s < 30_000; s++ {
		w.put(s, 1) // new decisions after the gap
	}
	if len(w.far) > 0 || len(w.vals) > 4*16384 {
		t.Errorf("after catching up: %d slots far, a ring of %d: want none far, at most %d", len(w.far), len(w.vals), 4*16384)
	}
}
