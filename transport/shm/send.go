package shm

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/ring"
	"github.com/plexus-hpc/plexus/transport/frame"
)

// Send writes a frame to peer's ring and returns once it is all in the
// ring, or, for a frame of one ring message while another goroutine is
// writing to peer, once a copy of it is queued for that goroutine to write
// (combiner); payload may be reused at once. h.Source is set to this
// rank. Any number of goroutines may call it; frames one goroutine sends to
// one peer arrive in order. Send waits while the ring is full: before the
// frame's first ring message it returns ctx.Err() if ctx ends; once a frame
// has started it is finished, unless the peer is lost (ErrPeerLost) or
// the Endpoint closes (ErrClosed), since a half frame would desynchronise
// the ring. Queued frames are dropped if the peer is lost first. A Send
// that holds the ring writes the frames others left before its own and
// after it, waiting for room for them as for its own frame but beyond its
// ctx (their senders have returned), until the peer is lost or the
// Endpoint closes; the peer's receive goroutine keeps the ring draining
// while the peer lives.
func (e *Endpoint) Send(ctx context.Context, peer int, h frame.Header, payload []byte) error {
	if err := e.checkSend(peer, h, payload); err != nil {
		return err
	}
	if err := e.sendable(peer); err != nil {
		return err // checked once, before the frame is written or left
	}
	h.Source = int32(e.cfg.Rank)
	o := &e.out[peer]
	if !e.tryTake(o) {
		if e.leave(o, h, payload) {
			e.drainLeft(peer, o)
			return nil
		}
		o.mu.Lock()
	}
	defer e.release(peer, o)
	if err := e.ready(peer, o); err != nil {
		return err
	}
	return e.sendFrame(ctx, peer, o, h, payload)
}

// ready opens the ring to peer if need be and writes what must go before
// a new frame: the pending bundle, then the frames others left. The
// caller holds o.mu.
func (e *Endpoint) ready(peer int, o *outbox) error {
	if o.r != nil && len(o.pending) == 0 && o.queued.Load() == 0 {
		return nil // the common case: open, and nothing to write first
	}
	if err := e.openRing(peer, o); err != nil {
		return err
	}
	if err := e.flushLocked(peer, o); err != nil {
		return err
	}
	return e.writeQueued(peer, o)
}

// leave queues the frame if it is small (maxLeft, and one ring message)
// and the queue has room. The frame is encoded into a fresh buffer, so it
// needs no lock but the queue's.
func (e *Endpoint) leave(o *outbox, h frame.Header, payload []byte) bool {
	hl := headerLen(h, len(payload))
	if n := hl + len(payload); n > maxLeft || n > e.maxMessage() {
		return false
	}
	msg := make([]byte, hl+len(payload))
	putHeader(msg, h, len(payload))
	copy(msg[hl:], payload)
	return o.leaveOwned(msg)
}

// drainLeft takes mu if it is free after a frame was left, so that the
// frame is written even if the holder let go just before it was queued.
func (e *Endpoint) drainLeft(peer int, o *outbox) {
	if o.mu.TryLock() {
		e.release(peer, o)
	}
}

// release writes what was queued and unlocks mu, and then again while
// frames are queued and mu is free. The caller holds mu.
func (e *Endpoint) release(peer int, o *outbox) {
	for {
		switch {
		case o.queued.Load() == 0:
		case e.sendable(peer) == nil && e.openRing(peer, o) == nil:
			e.flushLocked(peer, o) // pending goes before the queue
			e.writeQueued(peer, o)
		default:
			o.recycle(o.takeQueue()) // the peer is gone: drop them
		}
		if e.cfg.Passive {
			return // nobody queues beside the one caller
		}
		o.mu.Unlock()
		if o.queued.Load() == 0 || !o.mu.TryLock() {
			return
		}
	}
}

// writeQueued writes the queued frames to the ring, in order, as many to
// a ring message as fit (a bundle, frame.go): a few dozen small frames
// then cost the ring one message and the cache a few lines, not one each.
// The caller holds mu and the ring is open.
func (e *Endpoint) writeQueued(peer int, o *outbox) error {
	if o.queued.Load() == 0 {
		return nil
	}
	q := o.takeQueue()
	defer o.recycle(q)
	bundle := o.scratch[:0]
	for _, msg := range q {
		if len(bundle)+len(msg) > len(o.scratch) {
			if err := e.put(mustFinish, peer, o.r, bundle); err != nil {
				return err
			}
			bundle = bundle[:0]
		}
		bundle = append(bundle, msg...)
	}
	if len(bundle) == 0 {
		return nil
	}
	return e.put(mustFinish, peer, o.r, bundle)
}

func (e *Endpoint) checkSend(peer int, h frame.Header, payload []byte) error {
	switch {
	case peer < 0 || peer >= e.cfg.Size || peer == e.cfg.Rank:
		return fmt.Errorf("shm: rank %d cannot send to rank %d (size %d)", e.cfg.Rank, peer, e.cfg.Size)
	case !h.Kind.User():
		return fmt.Errorf("shm: Send of a %s frame", h.Kind)
	case len(payload) > e.cfg.MaxPayload:
		return fmt.Errorf("%w: %d bytes to rank %d, limit %d", ErrTooLarge, len(payload), peer, e.cfg.MaxPayload)
	}
	return nil
}

// sendable reports why nothing may be sent to peer now, or nil.
func (e *Endpoint) sendable(peer int) error {
	if e.closing.Load() {
		return ErrClosed
	}
	return e.lostErr(peer)
}

// openRing initialises the ring to peer on first use: CAS of the pair word
// from unused to initialising, ring.New, then ready. The caller holds o.mu.
func (e *Endpoint) openRing(peer int, o *outbox) error {
	if o.r != nil {
		return nil
	}
	w := e.seg.pair(e.cfg.Rank, peer)
	if !atomic.CompareAndSwapUint64(w, pairUnused, pairInit) {
		return fmt.Errorf("%w: ring %d→%d already in state %d before its first Send (stale segment?)",
			ErrBadSegment, e.cfg.Rank, peer, atomic.LoadUint64(w))
	}
	r, err := ring.New(e.seg.ringRegion(e.cfg.Rank, peer), e.cfg.Slots)
	if err != nil {
		return fmt.Errorf("shm: ring %d→%d: %w", e.cfg.Rank, peer, err)
	}
	atomic.StoreUint64(w, pairReady)
	o.r, o.scratch = r, make([]byte, r.MaxMessage())
	return nil
}

// sendFrame puts the header and the payload's first bytes in one ring
// message and the rest in ring-sized chunks. The caller holds o.mu.
func (e *Endpoint) sendFrame(ctx context.Context, peer int, o *outbox, h frame.Header, payload []byte) error {
	if hl := headerLen(h, len(payload)); hl+len(payload) <= ring.SlotPayload {
		return e.putInPlace(ctx, peer, o.r, h, hl, payload)
	}
	if hl := headerLen(h, len(payload)); hl+len(payload) > bulkMin && len(payload) <= bulkMax {
		return e.sendBulk(ctx, peer, o, h, payload, false)
	}
	limit := len(o.scratch)
	hl := headerLen(h, len(payload))
	n := min(len(payload), limit-hl)
	msg := o.scratch[:hl+n]
	if hl == shortSize { // putHeader's two forms, inlined (putHeader is not)
		putShort(msg, h, len(payload))
	} else {
		putFull(msg, h, len(payload))
	}
	copy(msg[hl:], payload[:n])
	if err := e.put(ctx, peer, o.r, msg); err != nil {
		return err
	}
	for off := n; off < len(payload); off += limit {
		if err := e.put(mustFinish, peer, o.r, payload[off:min(off+limit, len(payload))]); err != nil {
			return err
		}
	}
	return nil
}

// put sends one ring message, waiting for room under ring.Backoff, and
// wakes peer if it sleeps. Mid-frame the caller passes mustFinish.
func (e *Endpoint) put(ctx context.Context, peer int, r *ring.Ring, msg []byte) error {
	var b ring.Backoff
	for {
		ok, err := r.TrySend(msg)
		if err != nil {
			return fmt.Errorf("shm: ring %d→%d: %w", e.cfg.Rank, peer, err)
		}
		if ok {
			e.wake(peer)
			return nil
		}
		if b.Wait() {
			if err := e.waitErr(ctx, peer); err != nil {
				return err
			}
		}
	}
}

// putInPlace sends a frame of one slot, with a header of hl bytes, writing
// it straight into the ring's slot (Claim, Part, Commit), waiting for room
// as put does. Built in a buffer first and then copied, the header's
// narrow stores were read back by the copy's wide loads before they had
// left the store buffer, which stalls the load. Frames of several slots
// go through the buffer: written in place, the first slot last, they were
// no faster (docs/benchmarks.md, "One-slot frames written in place" in
// section "Shared memory: a leaner receive path", 2026-11-22).
func (e *Endpoint) putInPlace(ctx context.Context, peer int, r *ring.Ring, h frame.Header, hl int, payload []byte) error {
	n := hl + len(payload)
	slot, err := e.claim(ctx, peer, r, n)
	if err != nil {
		return err
	}
	if hl == shortSize { // putHeader's two forms, inlined (putHeader is not)
		putShort(slot, h, len(payload))
	} else {
		putFull(slot, h, len(payload))
	}
	copy(slot[hl:], payload)
	r.Commit(n)
	e.wake(peer)
	return nil
}

// claim reserves a one-slot ring message of n bytes, waiting for room as
// put does, and returns the slot's payload to write it into; the caller
// then commits it and wakes peer.
func (e *Endpoint) claim(ctx context.Context, peer int, r *ring.Ring, n int) ([]byte, error) {
	var b ring.Backoff
	for !r.Claim(n) {
		if b.Wait() {
			if err := e.waitErr(ctx, peer); err != nil {
				return nil, err
			}
		}
	}
	return r.Part(0), nil
}

// mustFinish is the ctx of a write that may not stop half done: the rest
// of a frame whose first part is in the ring, or frames whose Send has
// returned (queued or pending). Abandoning either would leave the stream
// torn, so only the peer's loss or Close ends the wait.
var mustFinish = context.Background()

// waitErr says why a sender waiting for room should stop: ctx ended, the
// peer was lost or the Endpoint closes; nil: keep waiting.
func (e *Endpoint) waitErr(ctx context.Context, peer int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.awaitStalled(peer)
	return e.sendable(peer)
}

// wake wakes peer's receive goroutine if it announced it sleeps; the load
// after the ring's publishing store is the sender's half of layout.go's
// Dekker pattern.
func (e *Endpoint) wake(peer int) {
	if atomic.LoadUint32(e.seg.wait(peer)) == 1 {
		e.wakes.Add(1)
		e.wakeRank(peer)
	}
}
