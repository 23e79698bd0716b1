package shm

import (
	"context"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/ring"
)

// A passive Endpoint (Config.Passive) belongs to one goroutine at a time:
// the caller of comm's Serialized world, which receives only inside its
// own calls, as an MPI rank does. Nothing else touches the rings, so the
// receive lock (rx) and the outboxes' locks are not taken: each costs two
// locked instructions per poll or send, and a locked instruction waits
// for the store buffer to drain. The monitor goroutine still beats and
// watches the peers; it only marks a peer lost and wakes the sleeper,
// and the next poll reports it. With no receive goroutine and no flush
// timer, the caller's own polls receive, and Sleep waits when there is
// nothing to poll for.

// takeRx takes the receive lock, or reports that another goroutine
// receives; a passive Endpoint has no other.
func (e *Endpoint) takeRx() bool { return e.cfg.Passive || e.rx.TryLock() }

// dropRx releases what takeRx took.
func (e *Endpoint) dropRx() {
	if !e.cfg.Passive {
		e.rx.Unlock()
	}
}

// tryTake takes o's lock if it is free; a passive Endpoint's always is.
func (e *Endpoint) tryTake(o *outbox) bool { return e.cfg.Passive || o.mu.TryLock() }

// takeWait takes o's lock, waiting for it.
func (e *Endpoint) takeWait(o *outbox) {
	if !e.cfg.Passive {
		o.mu.Lock()
	}
}

// Sleep waits, in a passive Endpoint (Config.Passive), until a frame may
// have arrived from some peer, a peer is lost, ready reports true, ctx
// ends, the Endpoint closes or a Heartbeat passes; the caller then polls
// (PollUntil) and looks at what it waits for. It first writes the frames
// Queue holds back, since the caller may wait for an answer to them. It
// announces the sleep in the segment (senders ring a sleeping rank's
// doorbell) before it looks at the rings and calls ready (may be nil) once
// more, so that nothing that comes before the sleep is missed:
// ready must report the state of whatever the caller waits for that does
// not come as a frame, such as signal counters (Endpoint.SignalWord). A
// non-passive Endpoint's receive goroutine receives instead, and Sleep
// returns at once.
func (e *Endpoint) Sleep(ctx context.Context, ready func() bool) {
	if !e.cfg.Passive {
		return
	}
	e.flushAll(false)
	w := e.seg.wait(e.cfg.Rank)
	atomic.StoreUint32(w, 1)
	defer atomic.StoreUint32(w, 0)
	if e.arrived() || e.closing.Load() || e.lostPending.Load() > 0 || ctx.Err() != nil || ready != nil && ready() {
		return
	}
	stop := context.AfterFunc(ctx, func() { e.wakeRank(e.cfg.Rank) })
	defer stop()
	e.cfg.Idle()
	e.sleeps.Add(1)
	e.bell.wait(e.cfg.Heartbeat)
}

// arrived reports whether a ring from some peer holds a message, or a
// peer's ring has been set up and not attached yet.
func (e *Endpoint) arrived() bool {
	for p := range e.in {
		in := &e.in[p]
		switch {
		case p == e.cfg.Rank || in.done || in.broken:
		case in.r == nil:
			if atomic.LoadUint64(e.seg.pair(p, e.cfg.Rank)) == pairReady {
				return true
			}
		default:
			if _, st := in.r.Peek(); st != ring.Empty {
				return true
			}
		}
	}
	return false
}

// pollCount is how many times the rank has polled (PollUntil): a count
// without an atomic in a passive Endpoint, whose one caller both counts
// and reads it.
func (e *Endpoint) pollCount() uint64 {
	if e.cfg.Passive {
		return e.passivePolls
	}
	return e.polls.Load()
}

// Passive reports whether the Endpoint is passive (Config.Passive).
func (e *Endpoint) Passive() bool { return e.cfg.Passive }
