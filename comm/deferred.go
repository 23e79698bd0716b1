package comm

import (
	"sync"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// Deferred work: the delivery path must not wait on the network (it may
// run on a transport's reader goroutine), yet some frames call for an
// answer that does — a matched RTS (grant it, or pull and FIN), a CTS
// (push the data), a revoke (answer it), credit (or a link's window)
// to return. Starting a goroutine for each
// costs a thread wake-up on a small machine, tens of microseconds, when
// no P is idle to run it. Instead the delivery path queues the work
// (later); when a goroutine polls the transport because it waits (the
// world's one poller: w.spinning held, in Request.spin or Link.Progress),
// it runs the work itself after each Poll — it was about to wait anyway.
// With no poller, a goroutine is started to drain the queue, as before.
//
// No work is left behind: later appends and then loads w.spinning; a
// poller stores false to w.spinning and then drains (stopSpinning). With
// sequentially consistent atomics one of the two sees the other: either
// later sees no poller and starts a drainer, or the poller's last drain
// finds the work. Both may drain at once; each item is popped once.

// actionKind says what a deferred action does.
type actionKind uint8

const (
	actTakeRTS    actionKind = iota // w.takeRTS(r, m)
	actPush                         // w.push(r, n)
	actAbort                        // tell peer its transfer seq was given up
	actRevoked                      // tell peer its offer seq was revoked
	actCredit                       // return n bytes of credit to peer
	actLinkCredit                   // return n bytes of link channel ch's window to peer
)

// action is one piece of deferred work.
type action struct {
	kind actionKind
	r    *Request
	m    *msg
	peer int
	seq  uint64
	n    int
	ch   int
}

// deferred is a world's queue of actions.
//
// Concurrency contract: push and pop are safe for any number of
// goroutines; n counts the queued actions and is updated under mu, so a
// drainer may read it without the lock to skip an empty queue.
type deferred struct {
	mu   sync.Mutex
	q    []action
	head int
	n    atomic.Int64
}

// pending reports whether an action may be queued; it is one atomic
// load, for the poller to call after every Poll.
func (d *deferred) pending() bool { return d.n.Load() != 0 }

// push appends a.
func (d *deferred) push(a action) {
	d.mu.Lock()
	d.q = append(d.q, a)
	d.n.Add(1)
	d.mu.Unlock()
}

// pop removes the oldest action, if any.
func (d *deferred) pop() (action, bool) {
	if !d.pending() {
		return action{}, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.head == len(d.q) {
		return action{}, false
	}
	a := d.q[d.head]
	d.q[d.head] = action{}
	d.head++
	if d.head == len(d.q) {
		d.q, d.head = d.q[:0], 0
	}
	d.n.Add(-1)
	return a, true
}

// takePoller makes the caller the world's one poller, if there is none;
// in a serialized world the caller always is (World.adoptSerial).
func (w *World) takePoller() bool {
	return w.serial || w.spinning.CompareAndSwap(false, true)
}

// later queues a for a goroutine that may wait on the network: the
// poller, if one is active, or else a new goroutine. It never blocks.
func (w *World) later(a action) {
	w.acts.push(a)
	if !w.serial && !w.spinning.Load() { // a serialized world's caller drains at its next poll
		go w.drain()
	}
}

// drain runs queued actions until none is left.
func (w *World) drain() {
	for {
		a, ok := w.acts.pop()
		if !ok {
			return
		}
		w.run(a)
	}
}

// run does a.
func (w *World) run(a action) {
	switch a.kind {
	case actTakeRTS:
		w.takeRTS(a.r, a.m)
	case actPush:
		w.push(a.r, a.n)
	case actAbort:
		w.route(w.ctx, a.peer, frame.Header{Kind: frame.Data, Flags: flagAbort, Seq: a.seq}, nil)
	case actRevoked:
		w.fin(a.peer, a.seq, 0, flagAbort)
	case actCredit:
		w.returnCredit(a.peer, int64(a.n))
	case actLinkCredit:
		w.returnLinkCredit(a.peer, a.ch, int64(a.n))
	}
}

// drainPending runs the queued actions, if any: one atomic load when there
// are none, for the pollers to call after every poll.
func (w *World) drainPending() {
	if w.acts.pending() {
		w.drain()
	}
}

// stopSpinning ends the poller's turn, then runs what was queued for it
// (see above: the store comes before the drain).
func (w *World) stopSpinning() {
	if !w.serial {
		w.spinning.Store(false)
	}
	w.drainPending()
}
