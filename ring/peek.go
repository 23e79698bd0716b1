package ring

import (
	"fmt"
	"sync/atomic"
)

// PeekState says what Peek found at the receiver's position.
type PeekState uint8

const (
	// Empty: no message is waiting.
	Empty PeekState = 1 + iota
	// InPlace: a message of one slot is waiting; Peek returned it.
	InPlace
	// Other: a message of several slots, or a control word that is not
	// valid; TryRecv takes (or reports) it.
	Other
)

// Peek returns the next message in place, without copying it, if it fits
// one slot (at most SlotPayload bytes). msg points into the ring: it
// stays valid, and the sender cannot overwrite it, until Skip consumes
// it; the receiver must call Skip before the next Peek or TryRecv. A
// longer message, or a control word that is not valid, gives Other and
// leaves it to TryRecv; an empty ring gives Empty. On a ring shared with
// another process msg is shared memory: its bytes are the sender's to
// get right, but its length comes from the control word read once, so
// the slice is always within the slot. It must only be called by the
// receiver, one goroutine at a time.
func (r *Ring) Peek() (msg []byte, state PeekState) {
	t := r.rcv.tail
	c := atomic.LoadUint64(r.ctl(t))
	switch {
	case c&seqMask != (t+1)&seqMask:
		if r.checkStale(t, c) != nil {
			return nil, Other // TryRecv reports the corruption
		}
		return nil, Empty
	case c&contFlag != 0:
		return nil, Other
	}
	l := c >> lenShift & lenMask
	if l > SlotPayload {
		return nil, Other
	}
	r.rcv.peeked = t + 1
	return r.payload(t)[:l], InPlace
}

// Skip consumes the message the last Peek returned in place. If that
// Peek did not return InPlace, or its message has been consumed since
// (by Skip or TryRecv), Skip does nothing: consuming a message no Peek
// showed would lose it. It must only be called by the receiver.
func (r *Ring) Skip() {
	// peeked is one past the position of the message Peek returned in
	// place: the message is still unconsumed only while that is the
	// receiver's position.
	if t := r.rcv.tail; r.rcv.peeked == t+1 {
		r.advance(t + 1)
	}
}

// Claim reports whether the ring has room for a message of n bytes (0 ≤ n
// ≤ MaxMessage) and reserves it, for the sender to write in place: the
// message's bytes [i*SlotPayload, (i+1)*SlotPayload) go into Part(i), and
// Commit publishes them, with no copy in between. Nothing is published
// until Commit; a Claim without a Commit is simply overwritten by the
// next send, which ends it. A negative n, or one over MaxMessage, gives
// false and reserves nothing. Claim, Part and Commit must only be called
// by the sender.
func (r *Ring) Claim(n int) bool {
	// MaxMessage spelt out, and n as a uint so that one comparison
	// refuses a negative n too: Claim is on the sender's fast path and
	// must stay within the inliner's budget.
	if uint(n) > uint(r.half)*SlotPayload || !r.room(slotsFor(n)) {
		return false
	}
	r.snd.claimed = n + 1
	return true
}

// Part returns the payload of the i-th slot of the message being written
// in place, SlotPayload bytes.
func (r *Ring) Part(i int) []byte { return r.payload(r.snd.head + uint64(i)) }

// Commit publishes the n bytes written into the parts of the slots the
// last successful Claim reserved, all at once: the receiver gets the
// whole message or nothing of it. n may be less than the Claim's size,
// not more. Commit panics, publishing nothing, when there is no such
// Claim to publish — none made, a larger n, or one already ended by a
// Commit or a send — since publishing slots the Claim did not reserve
// would overwrite messages the receiver has not read, or hand it bytes
// never written, and corrupt the ring for good.
func (r *Ring) Commit(n int) {
	// claimed is the claimed size plus one, so that its zero value (no
	// Claim, or one a send has ended) and a negative n as a uint both
	// fail the comparison.
	if uint(n) >= uint(r.snd.claimed) {
		r.badCommit(n)
	}
	// The continuations' control words first, plain stores, then the
	// first slot's with an atomic store that publishes them all (see the
	// invariants in ring.go).
	h, k := r.snd.head, slotsFor(n)
	for i := uint64(1); i < k; i++ {
		l := min(uint64(n)-i*SlotPayload, SlotPayload)
		*r.ctl(h + i) = contFlag | l<<lenShift | (h+i+1)&seqMask
	}
	atomic.StoreUint64(r.ctl(h), uint64(n)<<lenShift|(h+1)&seqMask)
	r.snd.head, r.snd.claimed = h+k, 0
	r.warm()
}

// badCommit panics for a Commit of n bytes that no Claim reserved, out
// of line: the formatting is not Commit's to pay for.
func (r *Ring) badCommit(n int) {
	if r.snd.claimed == 0 {
		panic(fmt.Sprintf("ring: Commit(%d) without a Claim", n))
	}
	panic(fmt.Sprintf("ring: Commit(%d) after Claim(%d)", n, r.snd.claimed-1))
}
