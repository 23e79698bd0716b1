package shm

import "time"

// Polling: a goroutine that waits for a frame may sweep the incoming rings
// itself (Endpoint.Poll), so that its frame costs no hand-off from the
// receive goroutine and no wake-up of either. Meanwhile the receive
// goroutine stands aside: spinning beside the poller it would only contend
// for the rings and, on a small host, for the CPU the peer needs. It
// blocks instead until no Poll came for standAside, until PollDone says
// the poller has gone to sleep, or until a peer is lost, and then polls
// (and sleeps on its futex) as usual. So the rings are never left
// unwatched for longer than standAside, even if the poller stops calling.

// standAside is how long after the last Poll the receive goroutine keeps
// out of the way.
const standAside = 500 * time.Microsecond

// epoch is the origin of the poll times.
var epoch = time.Now()

// Poll receives and delivers, in the calling goroutine, whatever frames
// have arrived from any peer, and reports whether it delivered any. peer
// names the frame the caller waits for; every ring is swept regardless, so
// that no peer waits behind it. Poll never blocks: while another goroutine
// is receiving it returns false. A goroutine about to wait for a frame may
// Poll for a few microseconds first; Deliver and Lost may thus run on it.
// Poll must not be called from Deliver or Lost.
func (e *Endpoint) Poll(peer int) bool {
	e.polled.Store(int64(time.Since(epoch)))
	return e.poll()
}

// PollDone says the caller stops polling; the receive goroutine takes the
// rings back at once.
func (e *Endpoint) PollDone(peer int) {
	e.polled.Store(0)
	e.resumeReceive()
}

// resumeReceive ends the receive goroutine's standing aside, if it does.
func (e *Endpoint) resumeReceive() {
	select {
	case e.resume <- struct{}{}:
	default:
	}
}

// standingAside reports whether a Poll came within standAside.
func (e *Endpoint) standingAside() bool {
	last := e.polled.Load()
	return last != 0 && time.Duration(int64(time.Since(epoch))-last) < standAside
}

// standAside waits until the pollers are gone, a peer is lost or the
// Endpoint closes. Only the receive goroutine may call it.
func (e *Endpoint) standAside() {
	t := time.NewTimer(standAside)
	defer t.Stop()
	for e.standingAside() && e.lostPending.Load() == 0 {
		select {
		case <-e.resume:
		case <-e.stop:
			return
		case <-t.C:
			t.Reset(standAside)
		}
	}
}
