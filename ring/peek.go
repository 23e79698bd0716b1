package ring

import "sync/atomic"

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
	return r.payload(t)[:l], InPlace
}

// Skip consumes the message the last Peek returned in place. It must only
// be called by the receiver, after a Peek that returned InPlace.
func (r *Ring) Skip() { r.advance(r.rcv.tail + 1) }

// Claim reports whether the ring has room for a message of n bytes (at
// most MaxMessage) and reserves it, for the sender to write in place: the
// message's bytes [i*SlotPayload, (i+1)*SlotPayload) go into Part(i), and
// Commit(n) publishes them, with no copy in between. Nothing is published
// until Commit; a Claim without a Commit is simply overwritten by the
// next send. Claim, Part and Commit must only be called by the sender.
func (r *Ring) Claim(n int) bool {
	return n <= r.MaxMessage() && r.room(slotsFor(n))
}

// Part returns the payload of the i-th slot of the message being written
// in place, SlotPayload bytes.
func (r *Ring) Part(i int) []byte { return r.payload(r.snd.head + uint64(i)) }

// Commit publishes the n bytes written into the parts of the slots the
// last Claim(n) reserved, all at once: the receiver gets the whole message
// or nothing of it.
func (r *Ring) Commit(n int) {
	// The continuations' control words first, plain stores, then the
	// first slot's with an atomic store that publishes them all (see the
	// invariants in ring.go).
	h, k := r.snd.head, slotsFor(n)
	for i := uint64(1); i < k; i++ {
		l := min(uint64(n)-i*SlotPayload, SlotPayload)
		*r.ctl(h + i) = contFlag | l<<lenShift | (h+i+1)&seqMask
	}
	atomic.StoreUint64(r.ctl(h), uint64(n)<<lenShift|(h+1)&seqMask)
	r.snd.head = h + k
	r.warm()
}
