package am

import (
	"sync/atomic"
	"unsafe"
)

// activity tells whether any message was appended to any outbox between
// two moments, for the idleness of a rank (the ticker, Push, a Call about
// to block), while costing an append no atomic read-modify-write in the
// common case: an append is the hot path of a busy sender, and a locked
// instruction per message was a tenth of its cost (docs/benchmarks.md,
// "Active messages over TCP: where the aggregated path spends its time").
//
// Invariants:
//
//	A1. count changes only in note, and only upward.
//	A2. A slot holds v+1 only after a note on it loaded epoch value v and
//	    raised count; epoch only grows, so a note that loads v finds v+1
//	    in its slot only if an earlier note on the slot loaded v too.
//
// Claim: if note N completes after sample S1 returns, a sample S2 that
// starts after N completes returns a different value from S1. S1 loads
// count, then raises epoch to some v1; N loads a value v ≥ v1. If N finds
// v+1 in its slot, an earlier note loaded v (A2), after S1's raise, and
// raised count; else N raises count itself. Either raise follows S1's
// load of count and precedes S2's, so by A1 the values differ.
// Conversely, with no note between them two samples return the same
// value (A1). A note concurrent with a sample may count on either side
// of it, which is what idleness needs: a heuristic over a moving sender,
// never a promise about one message.
//
// Concurrency contract: sample may be called by any goroutine; note by
// any goroutine that holds the lock guarding the seen slot it passes
// (each outbox has its own slot, under its mu).
type activity struct {
	count atomic.Uint64
	_     [(cacheLine - unsafe.Sizeof(atomic.Uint64{})%cacheLine) % cacheLine]byte
	// epoch sits on its own line: every note reads it, every sample
	// writes it; count is written by few notes.
	epoch atomic.Uint64
	_     [(cacheLine - unsafe.Sizeof(atomic.Uint64{})%cacheLine) % cacheLine]byte
}

// cacheLine is the size the padding of activity assumes.
const cacheLine = 64

// note records an append; seen is the caller's slot, guarded by the
// caller's lock. It raises count only for the first note on the slot
// after each sample.
func (a *activity) note(seen *uint64) {
	if ep := a.epoch.Load() + 1; *seen != ep {
		*seen = ep
		a.count.Add(1)
	}
}

// sample returns a value that differs from an earlier sample's when a
// note came between them.
func (a *activity) sample() uint64 {
	n := a.count.Load()
	a.epoch.Add(1)
	return n
}
