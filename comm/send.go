package comm

import (
	"context"
	"fmt"
	"math"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// Send sends buf to peer with tag and returns when buf may be reused: at
// once for an eager message (it has been handed to the transport), after
// the receiver has taken the data for a rendezvous one.
func (w *World) Send(ctx context.Context, peer, tag int, buf []byte) error {
	if err := w.checkSend(peer, tag); err != nil {
		return err
	}
	w.drainSerial()
	if w.eager(peer, len(buf)) {
		return w.sendEager(ctx, peer, tag, buf)
	}
	r := w.newRequest()
	r.send, r.peer, r.tag, r.buf = true, peer, tag, buf
	if err := w.announce(ctx, r); err != nil {
		r.release()
		return err
	}
	_, err := r.waitPooled(ctx)
	return err
}

// Isend starts a send like Send and returns at once with a request whose
// Wait or Test gives the outcome; the caller must not touch buf until
// then. An eager message is handed to the transport before Isend returns,
// so Isends from one goroutine keep their order, and its request is
// complete at once: such requests may be shared between Isends to the
// same peer with the same tag and length, so do not use
// requests as identities.
func (w *World) Isend(peer, tag int, buf []byte) (*Request, error) {
	if err := w.checkSend(peer, tag); err != nil {
		return nil, err
	}
	w.drainSerial()
	if w.eager(peer, len(buf)) {
		if err := w.queueEager(peer, tag, buf); err != nil {
			return nil, err
		}
		return w.sentRequest(peer, tag, len(buf)), nil
	}
	r := w.slabs.alloc()
	r.w, r.send, r.peer, r.tag, r.buf = w, true, peer, tag, buf
	if err := w.announce(w.ctx, r); err != nil {
		return nil, err
	}
	return r, nil
}

// checkSend validates a send's arguments.
func (w *World) checkSend(peer, tag int) error {
	if w.closed.Load() {
		return ErrClosed
	}
	if peer < 0 || peer >= w.cfg.Size {
		return fmt.Errorf("%w: send to %d in a world of %d", ErrBadRank, peer, w.cfg.Size)
	}
	if tag < 0 || tag > math.MaxInt32 {
		return fmt.Errorf("%w: send with tag %d", ErrBadTag, tag)
	}
	return nil
}

// sendStatus is the status of a completed send: the destination, the tag,
// the length.
func (w *World) sendStatus(r *Request) Status {
	return Status{Source: r.peer, Tag: r.tag, Len: len(r.buf)}
}

// eager decides the protocol: below the limit (PullLimit for a peer that
// can pull) and within the credit the peer granted, the message goes
// eagerly; it spends the credit if so.
func (w *World) eager(peer, n int) bool {
	if n >= w.cfg.EagerLimit || n >= w.cfg.PullLimit && w.pullable(peer) {
		return false
	}
	if peer == w.cfg.Rank {
		return true
	}
	return w.spend(peer, eagerCost(n))
}

// sendEager hands an eager message to the transport.
func (w *World) sendEager(ctx context.Context, peer, tag int, buf []byte) error {
	if err := w.peerErr(peer); err != nil {
		return err
	}
	return w.routeEager(ctx, peer, commWorld, int32(tag), buf)
}

// routeEager is route for an eager frame of communicator comm with tag,
// passed down without a Header where the transport allows (eagerSender).
func (w *World) routeEager(ctx context.Context, peer int, comm uint32, tag int32, buf []byte) error {
	if t := w.eagerT; t != nil && peer != w.cfg.Rank {
		if err := t.SendEager(ctx, peer, comm, tag, buf); err != nil {
			return w.sendErr(ctx, peer, err)
		}
		return nil
	}
	h := frame.Header{Kind: frame.Eager, Comm: comm, Tag: tag, Aux: uint64(len(buf))}
	return w.route(ctx, peer, h, buf)
}

// queueEager hands Isend's eager message to the transport's queue, if it
// has one, so that a window of them shares system calls.
func (w *World) queueEager(peer, tag int, buf []byte) error {
	if err := w.peerErr(peer); err != nil {
		return err
	}
	if q := w.eagerT; q != nil && peer != w.cfg.Rank {
		if err := q.QueueEager(w.ctx, peer, commWorld, int32(tag), buf); err != nil {
			return w.sendErr(w.ctx, peer, err)
		}
		return nil
	}
	h := frame.Header{Kind: frame.Eager, Tag: int32(tag), Aux: uint64(len(buf))}
	return w.routeQueued(w.ctx, peer, h, buf)
}

// announce registers rendezvous send r and sends its RTS, an offer to
// pull if the peer can (offer), charged to the peer's credit
// (chargeRTS). The entry is in place before the RTS leaves, so the CTS or
// FIN always finds it.
func (w *World) announce(ctx context.Context, r *Request) error {
	r.seq = w.seq.Add(1)
	p := &w.peers[r.peer]
	p.mu.Lock()
	if p.lost != nil || w.closed.Load() {
		p.mu.Unlock()
		return w.peerErr(r.peer)
	}
	p.sends[r.seq] = r
	p.mu.Unlock()
	w.chargeRTS(r.peer)
	h, offer := w.rts(r)
	if err := w.route(ctx, r.peer, h, offer); err != nil {
		w.forgetSend(r)
		return err
	}
	return nil
}

// forgetSend removes r from its peer's waiting sends; it reports whether
// r was there, so that exactly one party finishes it.
func (w *World) forgetSend(r *Request) bool {
	p := &w.peers[r.peer]
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sends[r.seq] != r {
		return false
	}
	delete(p.sends, r.seq)
	return true
}

// push sends the n granted bytes of rendezvous send r in chunks, then
// completes it. Its owner may give up between chunks; the receiver then
// hears an abort.
func (w *World) push(r *Request, n int) {
	for off := 0; off < n; off += w.cfg.ChunkSize {
		if r.abort.Load() {
			h := frame.Header{Kind: frame.Data, Flags: flagAbort, Seq: r.seq}
			w.route(w.ctx, r.peer, h, nil)
			r.fail(r.cancelErr)
			return
		}
		end := min(n, off+w.cfg.ChunkSize)
		h := frame.Header{Kind: frame.Data, Seq: r.seq, Aux: uint64(off)}
		if err := w.route(w.ctx, r.peer, h, r.buf[off:end]); err != nil {
			r.fail(err)
			return
		}
	}
	r.finish(w.sendStatus(r), nil)
}

// withdrawSend takes send r back for its owner, who gives up with err:
// still waiting for its CTS, it is forgotten (a later CTS gets an abort);
// pushing data, it is flagged and push stops at the next chunk; offered
// to be pulled, it is revoked (offer).
func (w *World) withdrawSend(r *Request, err error) {
	if r.offered {
		w.revoke(r, err)
		return
	}
	if w.forgetSend(r) {
		r.fail(err)
		return
	}
	r.cancelErr = err
	r.abort.Store(true)
}
