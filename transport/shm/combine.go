package shm

import (
	"sync"
	"sync/atomic"
)

// Combining senders. The ring takes one frame at a time, so senders to one
// peer take turns under the outbox's mu. A sender of a small frame (one
// ring message) that finds mu taken does not wait for its turn: it leaves
// a copy of the frame in the outbox's queue and returns, and whoever holds
// mu writes the queue, in order, before its own frame and again before it
// lets go. Thousands of goroutines sending at once then do not each block
// (and hold a stack) until the ring has room; they leave a few dozen bytes
// each, as over TCP, where a writer combines queued frames. The queue is
// bounded by maxQueued bytes; beyond it senders wait for mu as before.
//
// Invariants:
//   - queue holds encoded ring messages in the order they were left; it
//     is written to the ring only by the holder of mu, front first, so a
//     goroutine's frames reach the peer in the order it sent them (a frame
//     it sends after leaving one goes behind it in the queue, or is
//     written by it under mu after it has drained the queue).
//   - after leaving a frame, a sender tries to take mu; a holder, after
//     unlocking, looks at the queue again and drains it if it can take mu.
//     So a frame is never left behind with nobody holding mu.

const (
	// maxQueued bounds the bytes in an outbox's queue.
	maxQueued = 64 << 20
	// maxLeft is the largest frame (header and payload) that is left in
	// the queue rather than waited with: copying it must stay cheap.
	maxLeft = 1 << 10
)

// combiner is the queue part of an outbox.
type combiner struct {
	qmu    sync.Mutex
	queue  [][]byte
	bytes  int
	queued atomic.Int64 // len(queue), read without qmu
}

// leaveOwned queues msg, a whole frame in one ring message that the
// queue may keep, unless the queue is full; it reports whether it did.
func (c *combiner) leaveOwned(msg []byte) bool {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	if c.bytes+len(msg) > maxQueued {
		return false
	}
	c.queue = append(c.queue, msg)
	c.bytes += len(msg)
	c.queued.Add(1)
	return true
}

// takeQueue removes and returns the queued frames, in an array the queue
// had before (spare); hand them to recycle when done. The caller holds mu.
func (o *outbox) takeQueue() [][]byte { return o.take(o.spare) }

// recycle makes q's array, which takeQueue returned, the spare again: the
// queue uses the other one now, so reusing q's for it would let frames
// left meanwhile overwrite those being written. The caller holds mu.
func (o *outbox) recycle(q [][]byte) {
	clear(q)
	o.spare = q[:0]
}

// take removes and returns the queued messages, reusing spare's array.
func (c *combiner) take(spare [][]byte) [][]byte {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	q := c.queue
	c.queue = spare[:0]
	c.bytes = 0
	c.queued.Store(0)
	return q
}
