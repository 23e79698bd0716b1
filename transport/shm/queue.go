package shm

import (
	"context"
	"slices"
	"time"

	"github.com/plexus-hpc/plexus/ring"
	"github.com/plexus-hpc/plexus/transport/frame"
)

// Queued frames. Isend's eager messages (comm's Queuer) need not reach
// the ring the moment they are sent, only soon, and in order: Queue
// appends a small frame to its peer's pending bundle, in the outbox, and
// the bundle goes to the ring as one ring message of whole frames
// (frame.go) when it is full, before any other frame to that peer, when a
// goroutine of this rank polls (it is about to wait, perhaps for an answer
// to them), after flushAfter at the latest (a timer), and at Close. A
// window of small messages then costs the ring a few writes and the cache
// a few lines, where it cost one of each per message; each message costs
// the sender a copy into the bundle.
//
// Invariants: pending is written only under the outbox's mu; an outbox's
// outgoing frames are, in order, pending, then the combining queue, then
// whatever the holder of mu writes itself; so whoever writes under mu
// writes pending first (flushLocked), and Queue moves the combining queue
// into pending before appending (frames left there came earlier).
// pendingN counts the outboxes whose pending is not empty; hasPending is
// set while it is.

const (
	// bundleMax is the pending bytes at which Queue writes the bundle:
	// about ten ring slots.
	bundleMax = 512
	// flushAfter bounds how long a frame may stay pending when nothing
	// else flushes it.
	flushAfter = 50 * time.Microsecond
)

// Queue sends a frame like Send, except that a small one (up to 512
// bytes with its header) may reach the ring a little later, together with
// the frames queued after it: when they fill a bundle, another frame goes
// to the peer, a goroutine of this rank polls, tens of microseconds pass
// or the Endpoint closes. payload may be reused at once. Frames one goroutine queues or sends to one peer arrive
// in order. Like the combining queue's, queued frames are dropped if the
// peer is lost first. A Queue that fills the bundle writes it, waiting
// for room in the ring beyond ctx (the frames before it were sent as far
// as their callers know), until the peer is lost or the Endpoint closes;
// ctx is only looked at by the Send a frame too big to queue becomes.
func (e *Endpoint) Queue(ctx context.Context, peer int, h frame.Header, payload []byte) error {
	if err := e.checkSend(peer, h, payload); err != nil {
		return err
	}
	hl := headerLen(h, len(payload))
	if hl+len(payload) > bundleMax {
		return e.Send(ctx, peer, h, payload)
	}
	if err := e.sendable(peer); err != nil {
		return err
	}
	o := &e.out[peer]
	if !e.tryTake(o) {
		return e.Send(ctx, peer, h, payload) // leaves it, behind the holder
	}
	h.Source = int32(e.cfg.Rank)
	b := o.grow(hl + len(payload))
	if hl == shortSize { // putHeader's two forms, inlined (putHeader is not)
		putShort(b, h, len(payload))
	} else {
		putFull(b, h, len(payload))
	}
	copy(b[hl:], payload)
	return e.queued(peer, o)
}

// grow makes room for a frame of n bytes at the end of o's pending bundle
// and returns it, after moving the combining queue's frames (which came
// earlier) into the bundle. The caller holds o.mu.
func (o *outbox) grow(n int) []byte {
	if o.queued.Load() > 0 {
		q := o.takeQueue()
		for _, msg := range q {
			o.pending = append(o.pending, msg...)
		}
		o.recycle(q)
	}
	k := len(o.pending)
	o.pending = slices.Grow(o.pending, n)[:k+n] // no clearing: the caller fills them
	return o.pending[k:]
}

// queued finishes a Queue whose frame is in o's bundle: it writes the
// bundle if it is full, or else notes it pending, and unlocks o.
func (e *Endpoint) queued(peer int, o *outbox) error {
	var err error
	switch {
	case len(o.pending) >= bundleMax:
		err = e.flushLocked(peer, o)
	case !o.hasPending.Load():
		e.markPending(peer, o)
	}
	e.release(peer, o)
	return err
}

// Flush writes every pending bundle now, but for those of outboxes another
// goroutine holds (which write their bundle before their own frame). A
// rank about to wait for an answer to frames it queued calls it (comm's
// Waitall does); a poll does it too. Any goroutine may call it.
func (e *Endpoint) Flush() { e.flushAll(false) }

// markPending notes that o's pending is no longer empty and arms its
// timer, unless it is armed already: then it fires within flushAfter
// anyway, earlier than this bundle needs, which does no harm and saves a
// timer reset (tens of nanoseconds) per bundle of a stream. The caller
// holds o.mu.
func (e *Endpoint) markPending(peer int, o *outbox) {
	o.hasPending.Store(true)
	e.pendingN.Add(1)
	switch {
	case e.cfg.Passive:
		return // flushed by the next call: nothing may run beside it
	case o.timer == nil:
		o.timer = time.AfterFunc(flushAfter, func() { e.flushPeer(peer) })
	case !o.armed:
		o.timer.Reset(flushAfter)
	default:
		return
	}
	o.armed = true
}

// flushLocked writes o's pending bundle, if any, to the ring. The caller
// holds o.mu. On an error (the peer lost, the Endpoint closing) the
// bundle is dropped.
func (e *Endpoint) flushLocked(peer int, o *outbox) error {
	if len(o.pending) == 0 {
		return nil
	}
	if o.hasPending.Load() {
		// First: the locked instructions of these wait for the store
		// buffer to drain, which now holds only local stores; after the
		// write it would hold the ring's, waiting for their cache lines.
		o.hasPending.Store(false)
		e.pendingN.Add(-1)
	}
	err := e.sendable(peer)
	if err == nil {
		err = e.openRing(peer, o)
	}
	if n := len(o.pending); err == nil && n > ring.SlotPayload && n <= bulkMax {
		// Through the bulk buffer: the receiver reads the frames where
		// they lie, not copied out of the ring's slots first.
		err = e.sendBulk(mustFinish, peer, o, frame.Header{}, o.pending, true)
	} else {
		for off := 0; err == nil && off < len(o.pending); {
			n := e.bundleCut(o, off)
			if n == 0 {
				break // cannot happen: every pending frame fits a ring message
			}
			err = e.put(mustFinish, peer, o.r, o.pending[off:off+n])
			off += n
		}
	}
	o.pending = o.pending[:0]
	return err
}

// bundleCut returns how many bytes of o.pending from off go in one ring
// message: all of them if they fit (the usual case), else as many whole
// frames as fit a ring message.
func (e *Endpoint) bundleCut(o *outbox, off int) int {
	limit := len(o.pending) - off
	if limit <= len(o.scratch) {
		return limit
	}
	limit = len(o.scratch)
	n := 0
	for n < limit {
		_, total, hl, err := parseHeader(o.pending[off+n:], e.cfg.Rank)
		if err != nil || n+hl+total > limit {
			break
		}
		n += hl + total
	}
	return n
}

// flushPeer writes peer's pending bundle; the timer calls it, on a
// goroutine of its own, shielded from faults in the segment (fault.go).
// After a fault it releases again: the segment touched only under o.mu,
// o.mu is still held, and the peer, now lost, gets nothing more.
func (e *Endpoint) flushPeer(peer int) {
	shield()
	o := &e.out[peer]
	o.mu.Lock()
	o.armed = false
	e.shielded(func() { e.flushLocked(peer, o) })
	for !e.shielded(func() { e.release(peer, o) }) {
	}
}

// flushAll writes every pending bundle. wait says whether to wait for an
// outbox another goroutine holds (Close) or skip it (a poll: the holder
// writes the bundle before its own frame anyway).
func (e *Endpoint) flushAll(wait bool) {
	if e.pendingN.Load() == 0 {
		return
	}
	for p := range e.out {
		o := &e.out[p]
		if !o.hasPending.Load() {
			continue
		}
		if wait {
			e.takeWait(o)
		} else if !e.tryTake(o) {
			continue
		}
		e.flushLocked(p, o)
		e.release(p, o)
	}
}
