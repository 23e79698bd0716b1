package shm

import (
	"fmt"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/internal/wait"
	"github.com/plexus-hpc/plexus/ring"
	"github.com/plexus-hpc/plexus/transport/frame"
)

// The receive goroutine waits under the waiting policy for helpers
// (wait.Helper): it polls the rings for some microseconds (a peer in the
// middle of a burst answers within them), yields, then sleeps on its doorbell
// until a sender wakes it or the heartbeat passes. The spin is short on
// purpose: a goroutine that waits for a frame polls the rings itself
// (poll.go), so the receive goroutine matters when nobody waits, and on a
// small host every microsecond it spins is taken from a peer rank that
// needs the CPU.
const (
	// batch bounds the messages taken from one ring per sweep, so one busy
	// peer does not starve the others.
	batch = 16
	// untilSweeps is how many more empty sweeps PollUntil makes before it
	// returns: well under a microsecond.
	untilSweeps = 16
)

// inbox is the receiving end of the ring from one peer, with the frame
// being reassembled from it. Only the holder of Endpoint.rx touches it.
type inbox struct {
	r       *ring.Ring   // nil until the peer's first Send, or once lost
	done    bool         // lost and reported
	broken  bool         // the ring broke the protocol: never read again
	h       frame.Header // the frame in progress, if inFrame
	asm     []byte
	have    int
	want    int
	inFrame bool
	bulk    bulkIn // the bulk buffer from the peer (bulk.go)
}

// receive polls the incoming rings until Close, shielded from faults in
// the segment (fault.go).
func (e *Endpoint) receive() {
	defer e.wg.Done()
	shield()
	for !e.shielded(e.receiveLoop) {
	}
}

// receiveLoop is receive's loop, standing aside while a goroutine polls
// the rings (poll.go).
func (e *Endpoint) receiveLoop() {
	w := wait.NewWaiter(&wait.Helper)
	for !e.closing.Load() {
		if e.standingAside() {
			e.standAside()
			w.Restart()
			continue
		}
		if e.poll() {
			w.Restart()
			continue
		}
		if w.Idle() == wait.Sleep && e.sleep() {
			w.Restart()
		}
	}
}

// poll sweeps the rings and reports lost peers, unless another goroutine
// is receiving or the Endpoint is closing; it reports whether it made
// progress.
func (e *Endpoint) poll() bool { return e.pollUntil(nil) }

// pollUntil is poll, stopping early once done (if not nil) is done.
func (e *Endpoint) pollUntil(done interface{ Done() bool }) bool {
	if !e.takeRx() {
		return false
	}
	defer e.dropRx()
	if e.closing.Load() {
		return false // Close may be about to unmap the rings
	}
	defer e.publishBulk()
	progress := e.sweep(done)
	// A waiter sweeps again, still holding the rings, until something
	// comes or untilSweeps sweeps found nothing: its message is seen a
	// sweep after it lands, not a lock, an unlock and a count later.
	for i := 0; done != nil && !progress && i < untilSweeps && e.lostPending.Load() == 0; i++ {
		progress = e.sweep(done)
	}
	if e.lostPending.Load() > 0 {
		e.reportLost()
		progress = true
	}
	return progress
}

// sleep announces that this rank sleeps, polls once more and, if still
// nothing is there, waits on its doorbell. It reports whether the last poll
// made progress.
func (e *Endpoint) sleep() bool {
	w := e.seg.wait(e.cfg.Rank)
	atomic.StoreUint32(w, 1)
	if e.poll() || e.closing.Load() || e.lostPending.Load() > 0 || e.standingAside() {
		atomic.StoreUint32(w, 0)
		return true
	}
	e.cfg.Idle()
	e.sleeps.Add(1)
	e.bell.wait(e.cfg.Heartbeat)
	atomic.StoreUint32(w, 0)
	return false
}

// sweep takes up to batch messages from every incoming ring and reports
// whether it took any; it stops after a message that made done (if not
// nil) done. The caller holds e.rx.
func (e *Endpoint) sweep(done interface{ Done() bool }) bool {
	progress := false
	for p := range e.in {
		in := &e.in[p]
		if p == e.cfg.Rank || in.done || in.broken || !e.attach(p, in) {
			continue
		}
		for range batch {
			if !e.recvOne(p, in) {
				break
			}
			progress = true
			if done != nil && done.Done() {
				return true
			}
		}
	}
	return progress
}

// attach attaches the ring from p once p has initialised it.
func (e *Endpoint) attach(p int, in *inbox) bool {
	if in.r != nil {
		return true
	}
	if atomic.LoadUint64(e.seg.pair(p, e.cfg.Rank)) != pairReady {
		return false
	}
	r, err := ring.Attach(e.seg.ringRegion(p, e.cfg.Rank))
	if err != nil {
		e.brokeProtocol(p, in, err)
		return false
	}
	in.r = r
	return true
}

// recvOne takes one ring message from p and reports whether there was one.
// A message of one slot (a frame of up to ring.SlotPayload bytes with its
// header) is parsed and delivered where it lies in the ring.
func (e *Endpoint) recvOne(p int, in *inbox) bool {
	if in.inFrame {
		return e.recvChunk(p, in)
	}
	switch msg, st := in.r.Peek(); st {
	case ring.Empty:
		return false
	case ring.InPlace: // read in the ring, not copied out first
		err := e.startFrame(p, in, msg)
		in.r.Skip()
		if err != nil {
			e.brokeProtocol(p, in, err)
			return false
		}
		return true
	}
	n, ok, err := in.r.TryRecv(e.rbuf)
	if !ok || err != nil {
		if err != nil {
			e.brokeProtocol(p, in, err)
		}
		return false
	}
	if err := e.startFrame(p, in, e.rbuf[:n]); err != nil {
		e.brokeProtocol(p, in, err)
		return false
	}
	return true
}

// startFrame delivers the frames of one ring message — one or more whole
// frames back to back (frame.go) — or, when the last one does not end in
// it, starts reassembling that one from the ring messages that follow.
// Whole short eager frames, the common case, are read field by field
// (shortEager) and gathered into runs: a Header built with narrow stores
// and then copied whole made the copy's wide loads wait (store forwarding
// fails), about a tenth of a receiving rank's time in a message-rate run.
func (e *Endpoint) startFrame(p int, in *inbox, msg []byte) error {
	if len(msg) == 0 {
		return fmt.Errorf("shm: malformed frame: an empty ring message")
	}
	return e.frames(p, in, msg)
}

// frames is startFrame's loop. in is nil for the frames of a bundle from
// the bulk buffer (bulk.go), which must all be whole, and none a bulk
// frame.
func (e *Endpoint) frames(p int, in *inbox, msg []byte) error {
	var run runOf
	for len(msg) > 0 {
		if msg[0] == bulkMark {
			e.endRun(p, &run)
			if in == nil {
				return fmt.Errorf("shm: malformed frame: a bulk frame in a bulk bundle")
			}
			n, err := e.deliverBulk(p, msg)
			if err != nil {
				return err
			}
			msg = msg[n:]
			continue
		}
		if total, ok := e.shortEager(msg); ok {
			f, body := msg[:shortSize], msg[shortSize:shortSize+total]
			msg = msg[shortSize+total:]
			if len(msg) == 0 && run.n == 0 { // the only frame
				e.deliverOne(p, runKey(f), body)
				return nil
			}
			e.addToRun(p, &run, runKey(f), body)
			continue
		}
		e.endRun(p, &run) // the frames before this one are good
		h, total, hl, err := parseHeader(msg, p)
		switch {
		case err == nil && total > e.cfg.MaxPayload:
			err = fmt.Errorf("%w: frame of %d bytes, limit %d", ErrTooLarge, total, e.cfg.MaxPayload)
		case err == nil && int(h.Source) != p:
			err = fmt.Errorf("shm: malformed frame: source %d on the ring from rank %d", h.Source, p)
		}
		if err != nil {
			return err
		}
		body := msg[hl:]
		if len(body) < total {
			if in == nil {
				return fmt.Errorf("shm: malformed frame: %d of %d bytes in a bulk bundle", len(body), total)
			}
			if cap(in.asm) < total {
				in.asm = make([]byte, total)
			}
			in.h, in.want, in.have, in.inFrame = h, total, copy(in.asm[:total], body), true
			return nil
		}
		e.cfg.Deliver(p, h, body[:total])
		msg = body[total:]
	}
	e.endRun(p, &run)
	return nil
}

// recvChunk receives the next chunk of the frame in progress straight into
// the reassembly buffer, and delivers the frame when it is complete.
func (e *Endpoint) recvChunk(p int, in *inbox) bool {
	n, ok, err := in.r.TryRecv(in.asm[in.have:in.want])
	if !ok || err != nil {
		if err != nil {
			e.brokeProtocol(p, in, err)
		}
		return false
	}
	in.have += n
	if in.have == in.want {
		in.inFrame = false
		e.cfg.Deliver(p, in.h, in.asm[:in.want])
	}
	return true
}

// brokeProtocol gives p up: its ring can no longer be trusted.
func (e *Endpoint) brokeProtocol(p int, in *inbox, err error) {
	e.cfg.Logger.Error("shm: broken ring", "rank", e.cfg.Rank, "peer", p, "err", err)
	in.r, in.broken = nil, true
	e.markLost(p, err)
}

// reportLost drains the ring of every newly lost peer — a peer that closed
// or died published its last messages before its state said so — drops
// any half frame, and calls Lost. The ring is attached first if need be:
// the peer may have opened it, sent and closed since the sweep looked.
func (e *Endpoint) reportLost() {
	for p := range e.in {
		in := &e.in[p]
		err := e.lostErr(p)
		if p == e.cfg.Rank || in.done || err == nil {
			continue
		}
		for !in.broken && e.attach(p, in) && e.recvOne(p, in) {
		}
		*in = inbox{done: true}
		e.lostPending.Add(-1)
		e.cfg.Lost(p, err)
	}
}
