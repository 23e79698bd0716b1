package comm

// Pull rendezvous: when the transport can let the peer read this rank's
// memory (a puller, shared memory with cross-memory attach), a rendezvous
// send offers its buffer instead of waiting for a CTS and pushing chunks.
//
//	sender                                 receiver
//	RTS+flagPull, payload = buffer address →
//	                                       matched: Pull straight into the
//	                                       receive buffer (what fits)
//	← CTS+flagPull, Aux = bytes pulled (FIN)
//	send completes: buf is free again      receive completes
//
// The sender's buffer stays reachable, and must stay unchanged, until the
// FIN: the request that holds it sits in the peer's sends until then.
// A sender that gives up after the offer left cannot simply forget it,
// since the receiver may be reading the buffer: it sends a revoke
// (Data+flagPull+flagAbort) and waits for the answer, either the FIN of a
// pull already under way or CTS+flagPull+flagAbort (revoked: nothing will
// be read; a receive that matches the offer later fails with ErrAborted,
// as after a classic rendezvous that was given up). The wait is bounded by
// the peer's loss, which fails the send. A receiver whose Pull fails (the
// peer cannot be read after all, a bad address) falls back to the classic
// protocol: it answers the offer with a CTS and the sender pushes.
//
// Invariants: an offer goes from waiting to taken (by the receive that
// pulls) or to revoked (by the sender's revoke), once, by compare-and-swap,
// so it is answered exactly once: FIN or CTS after taken, revoked after
// revoked. Offers live in World.offers from the RTS until that moment.

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// flagPull marks the frames of the pull rendezvous: an RTS that offers
// the buffer's address, a CTS that ends the transfer (FIN), a Data frame
// that revokes the offer (with flagAbort).
const flagPull uint8 = 2

// pullChunk bounds one Pull, so that a receive withdrawn during a very
// large transfer stops within a few milliseconds.
const pullChunk = 8 << 20

// Offer states.
const (
	offerWaiting uint32 = iota
	offerTaken
	offerRevoked
)

// offer is a pull rendezvous announced to this rank.
type offer struct {
	addr  uint64
	state atomic.Uint32
}

// offerKey names an offer: its sender and the sender's transfer id.
type offerKey struct {
	peer int
	seq  uint64
}

// pullable reports whether peer can pull from this rank.
func (w *World) pullable(peer int) bool {
	return w.puller != nil && peer != w.cfg.Rank && w.puller.PullableBy(peer)
}

// rts builds the announcement of rendezvous send r: an offer of its
// buffer when the peer can pull it, a plain RTS otherwise.
func (w *World) rts(r *Request) (frame.Header, []byte) {
	h := frame.Header{Kind: frame.RTS, Tag: int32(r.tag), Seq: r.seq, Aux: uint64(len(r.buf))}
	if len(r.buf) == 0 || !w.pullable(r.peer) {
		return h, nil
	}
	r.offered = true
	h.Flags = flagPull
	return h, binary.LittleEndian.AppendUint64(nil, bufAddr(r.buf))
}

// offerFrom records the offer an RTS carries, if it does; a malformed
// one is ignored, so the receive will answer with a CTS. It runs on the
// transport's reader, which may run before openWorld has stored w.t: it does
// not look at the transport.
func (w *World) offerFrom(peer int, h frame.Header, payload []byte) *offer {
	if h.Flags&flagPull == 0 || len(payload) != 8 {
		return nil
	}
	o := &offer{addr: binary.LittleEndian.Uint64(payload)}
	w.offers.Store(offerKey{peer, h.Seq}, o)
	return o
}

// takePull completes receive r with offered message m by pulling it, and
// reports whether it did; if not, the caller grants m the classic way. It
// never runs on the transport's reader: it runs in Recv or Irecv when the
// offer was there first (so Irecv then returns after the copy, as for an
// eager message), as deferred work (World.later) when the receive was.
func (w *World) takePull(r *Request, m *msg) bool {
	o, src, seq := m.offer, m.src, m.seq
	if !o.state.CompareAndSwap(offerWaiting, offerTaken) {
		m.free()
		r.fail(fmt.Errorf("%w: rank %d withdrew transfer %d", ErrAborted, src, seq))
		return true
	}
	w.offers.Delete(offerKey{src, seq})
	p := w.puller
	if p == nil {
		return false
	}
	st := Status{Source: src, Tag: m.tag, Len: m.len}
	n, err := w.pull(p, r, src, o.addr, min(len(r.buf), m.len))
	if err != nil && !r.abort.Load() {
		return false // m is intact: the caller grants it, the sender pushes
	}
	m.free()
	w.fin(src, seq, n, 0)
	if err == nil {
		err = truncated(st, r.buf)
	}
	r.finish(st, err)
	return true
}

// bufAddr is the address of buf's first byte, as the peer's Pull needs
// it. buf stays where it is: Go's heap does not move objects, and a buffer
// handed to Send or Isend has escaped to the heap (requests keep it).
func bufAddr(buf []byte) uint64 { return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(buf)))) }

// pull reads the first want bytes of the offer at addr into r's buffer,
// in chunks, stopping if r's owner withdraws it. It returns the bytes read.
func (w *World) pull(p puller, r *Request, src int, addr uint64, want int) (int, error) {
	for n := 0; n < want; {
		if r.abort.Load() {
			return n, r.cancelErr
		}
		end := min(want, n+pullChunk)
		if err := p.Pull(src, addr+uint64(n), r.buf[n:end]); err != nil {
			return n, err
		}
		n = end
	}
	return want, nil
}

// fin tells peer that transfer seq is over: n bytes were pulled, or with
// flagAbort, its offer was revoked. The buffer is then free again.
func (w *World) fin(peer int, seq uint64, n int, flags uint8) {
	h := frame.Header{Kind: frame.CTS, Flags: flagPull | flags, Seq: seq, Aux: uint64(n)}
	_ = w.route(w.ctx, peer, h, nil) // fails only if peer is lost
}

// onFin completes the offered send that a FIN answers.
func (w *World) onFin(peer int, h frame.Header) {
	p := &w.peers[peer]
	p.mu.Lock()
	r := p.sends[h.Seq]
	delete(p.sends, h.Seq)
	p.mu.Unlock()
	switch {
	case r == nil:
	case h.Flags&flagAbort == 0:
		r.finish(w.sendStatus(r), nil)
	case r.abort.Load():
		r.fail(r.cancelErr)
	default:
		r.fail(fmt.Errorf("%w: rank %d revoked transfer %d unasked", ErrAborted, peer, h.Seq))
	}
}

// revoke withdraws offered send r for its owner, who gives up with err:
// the receiver answers with a FIN or a revoked, and onFin finishes r. If
// the revoke cannot be sent, the peer is lost or this world is closing,
// and dropPeer will fail r — not before: a closing world fails its sends
// only after its transport has told the peers it closed, and a Pull that
// sees that discards what it read, which may be the reused buffer.
func (w *World) revoke(r *Request, err error) {
	r.cancelErr = err
	r.abort.Store(true)
	h := frame.Header{Kind: frame.Data, Flags: flagPull | flagAbort, Seq: r.seq}
	_ = w.route(w.ctx, r.peer, h, nil)
}

// onRevoke answers a sender's revoke: an offer still waiting is revoked
// (later, by World.later: the reader must not wait on the network); one
// already taken is answered by its FIN.
func (w *World) onRevoke(peer int, h frame.Header) {
	k := offerKey{peer, h.Seq}
	v, ok := w.offers.Load(k)
	if !ok || !v.(*offer).state.CompareAndSwap(offerWaiting, offerRevoked) {
		return
	}
	w.offers.Delete(k)
	w.later(action{kind: actRevoked, peer: peer, seq: h.Seq})
}
