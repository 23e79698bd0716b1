package tcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/internal/guard"
	"github.com/plexus-hpc/plexus/transport/frame"
	"github.com/plexus-hpc/plexus/transport/multirail"
)

// railSet is an Endpoint's rails (Config.Rails). Each rank dials its own
// rails to a peer, the first time it sends that peer a long Data frame,
// and uses them only to send; the peer's rails to it, which it accepts,
// only bring frames in. So no two ranks ever race to set up one link.
//
// Delivery: frames from one peer reach Config.Deliver from its main
// connection and from its rails; peer.dmu makes the calls serial, as
// the Deliver contract promises, and gone (under dmu) ends them once the
// peer is reported lost, which happens after what its rails had
// delivered to this rank has been passed on (onLost).
type railSet struct {
	e       *Endpoint
	local   []localRail
	deliver func(int, frame.Header, []byte) // the user's Deliver
	lost    func(int, error)                // the user's Lost
	peers   []railPeer
	down    atomic.Int64 // rails this rank sends on that failed
	sent    atomic.Int64 // frames sent over rails
	// wrap and wrapIn, if set (by tests, before the first send), wrap
	// each rail this rank dials, and each it accepts, by its index among
	// the rails between the two.
	wrap, wrapIn func(i int, c net.Conn) net.Conn
}

// railPeer is the rails' state towards one peer.
type railPeer struct {
	dmu  sync.Mutex
	gone bool // under dmu

	setup sync.Once
	out   atomic.Pointer[multirail.Link] // set by setup; nil: no rails

	mu      sync.Mutex
	closed  bool
	in      *multirail.Link // the peer's rails to this rank
	inConns []net.Conn      // the peer's rails gathered so far, by index
	inStop  context.CancelFunc
	inDone  chan struct{}
}

// openRails starts listening on the rails of e.cfg, if any, and puts the
// rails' Deliver and Lost in front of the user's. It runs in Listen,
// before any goroutine reads e.cfg.
func (e *Endpoint) openRails() error {
	if len(e.cfg.Rails) == 0 {
		return nil
	}
	local, err := parseRails(e.cfg.Rails)
	if err != nil {
		return err
	}
	rs := &railSet{e: e, local: local, deliver: e.cfg.Deliver, lost: e.cfg.Lost, peers: make([]railPeer, e.cfg.Size)}
	for i := range rs.local {
		ln, err := net.Listen("tcp", net.JoinHostPort(rs.local[i].ip.String(), "0"))
		if err != nil {
			rs.closeListeners()
			return fmt.Errorf("tcp: rank %d: rail %s: %w", e.cfg.Rank, rs.local[i].ip, err)
		}
		rs.local[i].ln = ln
	}
	e.rails = rs
	e.cfg.Deliver, e.cfg.Lost = rs.deliverMain, rs.onLost
	for i := range rs.local {
		e.wg.Add(1)
		go e.railAcceptLoop(rs.local[i].ln)
	}
	e.wg.Add(1)
	context.AfterFunc(e.ctx, func() {
		defer e.wg.Done()
		rs.closeAll()
	})
	return nil
}

// RailAddrs returns the listen addresses of the Endpoint's rails, for
// the address book (JoinAddr); nil without rails.
func (e *Endpoint) RailAddrs() []string {
	if e.rails == nil {
		return nil
	}
	var out []string
	for _, l := range e.rails.local {
		out = append(out, l.ln.Addr().String())
	}
	return out
}

// RailStats counts an Endpoint's use of its rails.
type RailStats struct {
	// Links is the number of peers this rank sends to over rails.
	Links int
	// Frames is the number of Data frames sent over rails.
	Frames int64
	// Down is the number of rails this rank sends on that failed.
	Down int64
	// Resent is the number of chunks sent again on another rail after
	// theirs failed.
	Resent int64
}

// RailStats returns the rails' counters; zero without rails.
func (e *Endpoint) RailStats() RailStats {
	rs := e.rails
	if rs == nil {
		return RailStats{}
	}
	s := RailStats{Frames: rs.sent.Load(), Down: rs.down.Load()}
	for i := range rs.peers {
		if l := rs.peers[i].out.Load(); l != nil {
			s.Links++
			s.Resent += l.Stats().Resent
		}
	}
	return s
}

// deliverMain is Deliver for the main connections: the user's, made
// serial with the rails' deliveries from the same peer.
func (rs *railSet) deliverMain(peer int, h frame.Header, p []byte) {
	rp := &rs.peers[peer]
	rp.dmu.Lock()
	rs.deliver(peer, h, p)
	rp.dmu.Unlock()
}

// railSend posts a long Data frame on the rails to peer and reports
// true, or reports false for a frame that keeps the main connection (any
// other frame, or a peer without rails). It returns once the frame is
// queued on the rails, as Send does on the main connection, so that the
// frames behind it keep every rail busy; it waits only for the Link's
// window. Rails that fail on the way are replaced by the others (package
// multirail); when every rail to peer has failed, the frame's fate is
// unknown and it must not be sent again elsewhere, where it could arrive
// twice: the peer is failed instead (railsFailed).
func (e *Endpoint) railSend(ctx context.Context, peer int, h frame.Header, payload []byte) (bool, error) {
	if h.Kind != frame.Data || h.Flags != 0 || len(payload) < e.cfg.RailMin {
		return false, nil
	}
	if err := e.checkSend(peer, h, payload); err != nil {
		return true, err
	}
	l := e.rails.outLink(peer)
	if l == nil {
		return false, nil
	}
	h.Source = int32(e.cfg.Rank)
	msg := appendFrame(make([]byte, 0, headerSize+len(payload)), h, payload)
	err := l.Post(ctx, msg, func(err error) { e.railPostDone(peer, err) })
	switch {
	case err == nil:
		e.rails.sent.Add(1)
		return true, nil
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return true, err // only the wait for window space ended: nothing left
	case e.closing.Load():
		return true, ErrClosed
	}
	return true, e.railsFailed(peer, err)
}

// railPostDone hears how a frame posted on the rails to peer ended. A
// Link closed under it (the Endpoint closing, the peer lost) needs
// nothing more; a Link whose every rail failed fails the peer. It runs
// under the Link's lock, so the waiting is done by a goroutine of its own.
func (e *Endpoint) railPostDone(peer int, err error) {
	if err == nil || errors.Is(err, multirail.ErrClosed) || e.closing.Load() {
		return
	}
	go e.railsFailed(peer, err)
}

// railsFailed decides what becomes of a frame whose rails all failed
// under it. A peer that closes its Endpoint ends its rails, maybe before
// the acknowledgement of the last frame went out, and says Bye on the
// main connection, maybe a little later: such a frame counts as sent, as
// it would on the main connection, and railsFailed returns nil.
// Otherwise the main connection is failed too and the peer is lost.
func (e *Endpoint) railsFailed(peer int, err error) error {
	lost := e.awaitLost(peer, closeLinger)
	if errors.Is(lost, errBye) {
		return nil
	}
	cause := fmt.Errorf("every rail to rank %d failed: %w", peer, err)
	if c := e.peers[peer].c.Load(); c != nil {
		return c.failed(cause)
	}
	return cmpOrErr(lost, fmt.Errorf("%w: rank %d: %w", ErrPeerLost, peer, cause))
}

// flushRails waits, until deadline, for the peers to acknowledge every
// frame posted on rails, so that Close's Bye on the main connections
// comes after them: a frame posted on rails counts as sent once queued,
// as on a main connection, whose Close writes what is queued first.
func (rs *railSet) flushRails(deadline time.Time) {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	for i := range rs.peers {
		if l := rs.peers[i].out.Load(); l != nil {
			l.Flush(ctx)
		}
	}
}

// awaitLost returns why peer is lost, waiting up to d for it to be; nil
// if it is not by then, or the Endpoint closes.
func (e *Endpoint) awaitLost(peer int, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		p := &e.peers[peer]
		p.mu.Lock()
		lost := p.lost
		p.mu.Unlock()
		if lost != nil || e.closing.Load() || time.Now().After(deadline) {
			return lost
		}
		time.Sleep(time.Millisecond)
	}
}

// onLost is Lost with rails: what the peer's rails brought is delivered
// first, then its rails close, then the user hears of the loss. A peer's
// rails acknowledge a frame once it waits for delivery here, so a frame
// whose Send returned before the peer closed is never dropped.
func (rs *railSet) onLost(peer int, err error) {
	rp := &rs.peers[peer]
	rp.mu.Lock()
	in, stop, done := rp.in, rp.inStop, rp.inDone
	rp.mu.Unlock()
	if in != nil {
		stop()
		<-done
		rs.drain(peer, in)
	}
	rp.dmu.Lock()
	rp.gone = true
	rp.dmu.Unlock()
	rs.closePeer(peer)
	rs.lost(peer, err)
}

// closePeer closes the rails to and from peer.
func (rs *railSet) closePeer(peer int) {
	rp := &rs.peers[peer]
	rp.mu.Lock()
	rp.closed = true
	in, conns := rp.in, rp.inConns
	rp.inConns = nil
	rp.mu.Unlock()
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
	if in != nil {
		in.Close()
	}
	if l := rp.out.Load(); l != nil {
		l.Close()
	}
}

// closeAll closes every rail and listener, when the Endpoint closes.
func (rs *railSet) closeAll() {
	rs.closeListeners()
	for i := range rs.peers {
		rs.peers[i].setup.Do(func() {}) // no setup starts from now on
		rs.closePeer(i)
	}
}

func (rs *railSet) closeListeners() {
	for _, l := range rs.local {
		if l.ln != nil {
			l.ln.Close()
		}
	}
}

// railAcceptLoop accepts a peer's rails on one of this rank's.
func (e *Endpoint) railAcceptLoop(ln net.Listener) {
	defer e.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			return // closed with the Endpoint; a rail is not worth retrying for
		}
		t := e.gate.Admit(guard.Source(nc.RemoteAddr()), func() { nc.Close() })
		e.wg.Add(1)
		go e.railAccept(nc, t)
	}
}
