package shm

import (
	"time"

	"github.com/plexus-hpc/plexus/internal/wait"
)

// Polling: a goroutine that waits for a frame may sweep the incoming rings
// itself (Endpoint.Poll), so that its frame costs no hand-off from the
// receive goroutine and no wake-up of either. Meanwhile the receive
// goroutine stands aside: spinning beside the poller it would only contend
// for the rings and, on a small host, for the CPU the peer needs. It
// blocks instead until no Poll came for standAside, until PollDone says
// the poller has gone to sleep, or until a peer is lost, and then polls
// (and sleeps on its doorbell) as usual. So the rings are never left
// unwatched for longer than standAside, even if the poller stops calling.

// standAside is how long after the last Poll the receive goroutine keeps
// out of the way: the waiting policy's (wait.StandAside). Poll reads no
// clock: it counts itself in polls, and the receive goroutine, which wakes
// every standAside while it stands aside, compares the count to see
// whether polling stopped.
const standAside = wait.StandAside

// Poll receives and delivers, in the calling goroutine, whatever frames
// have arrived from any peer, and reports whether it delivered any. peer
// names the frame the caller waits for; every ring is swept regardless, so
// that no peer waits behind it. Poll never blocks: while another goroutine
// is receiving it returns false. A goroutine about to wait for a frame may
// Poll for a few microseconds first; Deliver and Lost may thus run on it.
// Poll must not be called from Deliver or Lost.
//
// Poll reads no clock, so it is cheap to call in a loop. The receive
// goroutine stands aside while polls keep coming and takes the rings back
// within a millisecond of the last one, or at once after PollDone.
func (e *Endpoint) Poll(peer int) bool { return e.PollUntil(peer, nil) }

// PollUntil is Poll, except that it returns as soon as a frame it
// delivered made done.Done() report true (done may be nil: Poll), and
// leaves whatever else has arrived to the next call; and that, with a
// done, it sweeps the rings a few times (untilSweeps) before it reports
// that nothing came, so a waiter polling in a loop looks at the rings
// more often than it takes and releases the receive lock. A waiter whose frame
// has come thus goes back to its caller at once, without first looking at
// the ring's next slot, whose cache line the sender is about to write.
func (e *Endpoint) PollUntil(peer int, done interface{ Done() bool }) bool {
	e.flushAll(false)  // the caller may be waiting for an answer to them
	if e.cfg.Passive { // no receive goroutine to stand aside
		e.passivePolls++
	} else {
		if !e.polling.Load() {
			e.polling.Store(true)
		}
		e.polls.Add(1)
	}
	return e.pollUntil(done)
}

// PollDone says the caller stops polling; the receive goroutine takes the
// rings back at once.
func (e *Endpoint) PollDone(peer int) {
	if e.cfg.Passive {
		return
	}
	e.polling.Store(false)
	e.resumeReceive()
}

// resumeReceive ends the receive goroutine's standing aside, if it does.
func (e *Endpoint) resumeReceive() {
	select {
	case e.resume <- struct{}{}:
	default:
	}
}

// standingAside reports whether a goroutine polls: it called Poll and
// neither called PollDone nor went a whole standAside without a Poll.
func (e *Endpoint) standingAside() bool { return e.polling.Load() }

// standAside waits until the pollers are gone, a peer is lost or the
// Endpoint closes. Only the receive goroutine may call it. A period of
// standAside with no Poll ends it: the poller left without PollDone.
func (e *Endpoint) standAside() {
	t := time.NewTimer(standAside)
	defer t.Stop()
	seen := e.polls.Load()
	for e.standingAside() && e.lostPending.Load() == 0 {
		select {
		case <-e.resume:
		case <-e.stop:
			return
		case <-t.C:
			if n := e.polls.Load(); n == seen {
				e.polling.Store(false)
			} else {
				seen = n
			}
			t.Reset(standAside)
		}
	}
}
