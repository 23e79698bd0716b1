package ring

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// TrySend copies p into the ring if there is room and reports whether it
// did. It returns ErrTooLarge for a message longer than MaxMessage. It must
// only be called by the sender, one goroutine at a time.
func (r *Ring) TrySend(p []byte) (bool, error) {
	if len(p) > SlotPayload {
		return r.trySendLong(p)
	}
	if !r.room(1) {
		return false, nil
	}
	r.put(p)
	return true, nil
}

// put writes p, at most SlotPayload bytes, into the slot at head, which
// room has found free: payload first, control word last. Only the sender
// calls it.
func (r *Ring) put(p []byte) {
	copySmall(r.Part(0), p)
	r.snd.claimed = len(p) + 1 // the Claim room made
	r.Commit(len(p))
}

// warm stores zero into the last payload word of the slot at head if that
// slot is free by the cached receiver position, so the next message finds
// its line already fetched for writing by this CPU rather than last
// written a lap ago, a cache miss that is a sizeable share of a round trip
// (docs/benchmarks.md, section "Ring round trip taken apart", 2026-11-22;
// docs/design/ring.md). The receiver reads a payload only after
// loading a control word stored after it, and the slot's previous message
// was copied out before the receiver published the position the sender
// cached, so the store races with nothing. Only the sender calls it.
func (r *Ring) warm() {
	if s := &r.snd; s.head-s.cachedTail < r.n {
		*(*uint64)(unsafe.Add(r.slots, (s.head&r.mask)*SlotSize+SlotSize-8)) = 0
	}
}

// trySendLong is TrySend for a message spanning several slots: it fills
// the continuations first and publishes the first slot last. Only the
// sender calls it.
func (r *Ring) trySendLong(p []byte) (bool, error) {
	k := slotsFor(len(p))
	if k > r.half {
		return false, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(p), r.MaxMessage())
	}
	if !r.room(k) {
		return false, nil
	}
	// The first slot last: the receiver polls its line, and writing it
	// first would hand the line back and forth while the rest is filled.
	for i := 1; i < int(k); i++ {
		copy(r.Part(i), p[i*SlotPayload:min(len(p), (i+1)*SlotPayload)])
	}
	copy(r.Part(0), p[:SlotPayload])
	r.snd.claimed = len(p) + 1 // the Claim room made
	r.Commit(len(p))
	return true, nil
}

// room reports whether k more slots are free, loading the receiver's
// published position only when the cached one says they are not. Only
// the sender calls it.
func (r *Ring) room(k uint64) bool {
	s := &r.snd
	if s.head+k-s.cachedTail <= r.n {
		return true
	}
	s.cachedTail = atomic.LoadUint64(r.recvPos)
	return s.head+k-s.cachedTail <= r.n
}

// TryRecv copies the next message into buf and reports its length. ok is
// false if the ring is empty. If buf is too short the message is still
// consumed: buf receives its prefix, n is the full length, ok is true and
// err wraps ErrTruncated. A control word no sender writes gives ErrCorrupt
// and consumes nothing. It must only be called by the receiver, one
// goroutine at a time.
func (r *Ring) TryRecv(buf []byte) (n int, ok bool, err error) {
	t := r.rcv.tail
	c := atomic.LoadUint64(r.ctl(t))
	if c&seqMask != (t+1)&seqMask {
		return 0, false, r.checkStale(t, c)
	}
	return r.take(t, c, buf)
}

// take consumes the message at the receiver's position t, whose control
// word c the receiver has loaded (once) and found to carry sequence t+1.
// Only the receiver calls it.
func (r *Ring) take(t, c uint64, buf []byte) (int, bool, error) {
	l := c >> lenShift & lenMask
	if l <= SlotPayload && c&contFlag == 0 && int(l) <= len(buf) { // the common case
		copySmall(buf, r.payload(t)[:l])
		r.advance(t + 1)
		return int(l), true, nil
	}
	return r.takeSlow(t, c, l, buf)
}

// takeSlow is take for a message that spans several slots or does not fit
// buf, or for a corrupt control word.
func (r *Ring) takeSlow(t, c, l uint64, buf []byte) (int, bool, error) {
	if c&contFlag != 0 || l > uint64(r.MaxMessage()) {
		return 0, false, fmt.Errorf("%w: position %d: control word %#x (length %d, capacity %d)", ErrCorrupt, t, c, l, r.MaxMessage())
	}
	k := slotsFor(int(l))
	if err := r.copyOut(buf, t, k, l); err != nil {
		return 0, false, err
	}
	r.advance(t + k)
	return r.result(l, buf)
}

// ready reports whether a message waits at the receiver's position. Only
// the receiver calls it.
func (r *Ring) ready() bool {
	t := r.rcv.tail
	return atomic.LoadUint64(r.ctl(t))&seqMask == (t+1)&seqMask
}

// result is TryRecv's return for a consumed message of length l.
func (r *Ring) result(l uint64, buf []byte) (int, bool, error) {
	if int(l) > len(buf) {
		return int(l), true, fmt.Errorf("%w: %d-byte message, %d-byte buffer", ErrTruncated, l, len(buf))
	}
	return int(l), true, nil
}

// checkStale accepts the control word of a slot the sender has not yet
// reached for position t: last lap's sequence, or zero (never written).
func (r *Ring) checkStale(t, c uint64) error {
	if c == 0 || c&seqMask == (t+1-r.n)&seqMask {
		return nil
	}
	return fmt.Errorf("%w: position %d: control word %#x is from neither this lap nor the last", ErrCorrupt, t, c)
}

// copyOut copies the first l bytes of the message at positions t..t+k-1
// into buf (as much as fits), checking each continuation's control word.
func (r *Ring) copyOut(buf []byte, t, k, l uint64) error {
	copy(buf, r.payload(t)[:min(l, SlotPayload)])
	for i := uint64(1); i < k; i++ {
		c := atomic.LoadUint64(r.ctl(t + i))
		if c&(contFlag|seqMask) != contFlag|(t+i+1)&seqMask {
			return fmt.Errorf("%w: position %d: control word %#x, want continuation %d", ErrCorrupt, t+i, c, t+i+1)
		}
		if off := i * SlotPayload; off < uint64(len(buf)) {
			copy(buf[off:], r.payload(t + i)[:min(l-off, SlotPayload)])
		}
	}
	return nil
}

// advance moves the receiver to position t and publishes it once it is
// half a ring past the last publication. Only the receiver calls it.
func (r *Ring) advance(t uint64) {
	r.rcv.tail = t
	if t-r.rcv.published >= r.half {
		atomic.StoreUint64(r.recvPos, t)
		r.rcv.published = t
	}
}
