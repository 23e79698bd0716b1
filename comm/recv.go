package comm

import (
	"context"
	"fmt"
	"math"

	"github.com/plexus-hpc/plexus/comm/match"
	"github.com/plexus-hpc/plexus/transport/frame"
)

// Recv receives a message from peer (or AnySource) with tag (or AnyTag)
// into buf. A message longer than buf fills buf and returns ErrTruncated
// with Status.Len its full length.
func (w *World) Recv(ctx context.Context, peer, tag int, buf []byte) (Status, error) {
	if err := w.checkRecv(peer, tag); err != nil {
		return Status{}, err
	}
	r := w.newRequest()
	r.peer, r.tag, r.buf = peer, tag, buf
	w.post(r)
	return r.waitPooled(ctx)
}

// Irecv starts a receive like Recv and returns at once; the request's
// Wait or Test gives the outcome. The caller must not touch buf until then.
func (w *World) Irecv(peer, tag int, buf []byte) (*Request, error) {
	if err := w.checkRecv(peer, tag); err != nil {
		return nil, err
	}
	r := w.slabs.alloc()
	r.w, r.peer, r.tag, r.buf = w, peer, tag, buf
	w.post(r)
	return r, nil
}

// checkRecv validates a receive's or probe's arguments.
func (w *World) checkRecv(peer, tag int) error {
	if w.closed.Load() {
		return ErrClosed
	}
	if peer != AnySource && (peer < 0 || peer >= w.cfg.Size) {
		return fmt.Errorf("%w: receive from %d in a world of %d", ErrBadRank, peer, w.cfg.Size)
	}
	if tag != AnyTag && (tag < 0 || tag > math.MaxInt32) {
		return fmt.Errorf("%w: receive with tag %d", ErrBadTag, tag)
	}
	return nil
}

// recvKey is the matching key of a receive for peer and tag.
func recvKey(peer, tag int) match.Key {
	return match.Key{Comm: commWorld, Source: int32(peer), Tag: int32(tag)}
}

// post offers r to the table (MPIV Algorithm 1): either it meets a stored
// message at once or it waits there for deliver. A receive from a peer
// already lost withdraws itself; dropPeer marks before it sweeps, so
// between them every such receive fails.
func (w *World) post(r *Request) {
	k := recvKey(r.peer, r.tag)
	var (
		m   *msg
		ok  bool
		err error
	)
	if r.peer != AnySource && r.tag != AnyTag { // checkRecv checked them
		m, ok = w.table.PostExact(k, r)
	} else {
		m, ok, err = w.table.Post(k, r)
	}
	switch {
	case err != nil:
		r.fail(fmt.Errorf("comm: %w", err))
	case ok:
		w.unstore(m)
		w.take(r, m, false)
	case r.peer != AnySource:
		if perr := w.peerErr(r.peer); perr != nil && w.table.Cancel(k, r.is) {
			r.fail(perr)
		}
	}
}

// is reports whether x is r; Cancel uses it to pick r out of its FIFO.
func (r *Request) is(x *Request) bool { return x == r }

// take completes receive r with message m, which nobody else holds now.
// async says the caller is the delivery path, which must not wait on the
// network: a rendezvous is then answered later, by the poller or a new
// goroutine (World.later).
func (w *World) take(r *Request, m *msg, async bool) {
	if m.kind == frame.Eager {
		w.takeEager(r, m)
		return
	}
	w.owe(m.src, m.cost) // the announcement's; its data is not charged
	if async {
		w.later(action{kind: actTakeRTS, r: r, m: m})
		return
	}
	w.takeRTS(r, m)
}

// takeEager copies an eager message into r and returns its credit.
func (w *World) takeEager(r *Request, m *msg) {
	w.owe(m.src, m.cost)
	w.fill(r, m.src, m.tag, m.data())
	m.free()
}

// fill completes receive r, which the caller took from the table, with
// the eager message data from src with tag.
func (w *World) fill(r *Request, src, tag int, data []byte) {
	copy(r.buf, data)
	st := Status{Source: src, Tag: tag, Len: len(data)}
	var err error
	if len(data) > len(r.buf) {
		err = truncated(st, r.buf)
	}
	r.finishTaken(st, err)
}

// truncated returns ErrTruncated when a message of st does not fit buf.
func truncated(st Status, buf []byte) error {
	if st.Len > len(buf) {
		return fmt.Errorf("%w: %d-byte message from rank %d tag %d into %d bytes",
			ErrTruncated, st.Len, st.Source, st.Tag, len(buf))
	}
	return nil
}

// takeRTS answers a matched rendezvous announcement: pull an offer
// (see offer), or else register r for the data, then grant it with a CTS. A grant of nothing (a zero-length
// message, or an empty buffer) completes r at once.
func (w *World) takeRTS(r *Request, m *msg) {
	if m.offer != nil && w.takePull(r, m) {
		return
	}
	r.src, r.seq, r.msgLen, r.msgTag = m.src, m.seq, m.len, m.tag
	r.want = min(len(r.buf), m.len)
	m.free()
	// Once granted, r may finish and be recycled at any moment: keep what
	// is needed afterwards in locals.
	src, seq, want := r.src, r.seq, r.want
	st := Status{Source: src, Tag: r.msgTag, Len: r.msgLen}
	trunc := truncated(st, r.buf)
	if err := w.register(r); err != nil {
		r.fail(err)
		w.grant(src, seq, 0)
		return
	}
	if err := w.grant(src, seq, want); err != nil {
		if w.unregister(src, seq, r) {
			r.fail(err)
		}
		return
	}
	if want == 0 && w.unregister(src, seq, r) {
		r.finish(st, trunc)
	}
}

// grant sends the CTS for transfer seq of peer.
func (w *World) grant(peer int, seq uint64, n int) error {
	h := frame.Header{Kind: frame.CTS, Seq: seq, Aux: uint64(n)}
	return w.route(w.ctx, peer, h, nil)
}

// register makes r, a matched rendezvous receive, findable by its data.
func (w *World) register(r *Request) error {
	p := &w.peers[r.src]
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.lost != nil:
		return p.lost
	case r.abort.Load():
		return r.cancelErr
	}
	p.recvs[r.seq] = r
	r.rdvPeer.Store(int32(r.src) + 1)
	return nil
}

// unregister removes r, registered for transfer seq of src, from its
// peer's receives; it reports whether r was there, so that exactly one
// party finishes it. The caller passes src and seq because r may have been
// finished and recycled already.
func (w *World) unregister(src int, seq uint64, r *Request) bool {
	p := &w.peers[src]
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.recvs[seq] != r {
		return false
	}
	delete(p.recvs, seq)
	return true
}

// withdrawRecv takes receive r back for its owner, who gives up with err.
// Still posted: cancel it. Matched to a rendezvous: flag it, then remove
// it if it has registered (register checks the flag under the same lock,
// so one of the two sees the other). Matched to an eager message: it is
// being finished right now.
func (w *World) withdrawRecv(r *Request, err error) {
	if w.table.Cancel(recvKey(r.peer, r.tag), r.is) {
		r.fail(err)
		return
	}
	r.cancelErr = err
	r.abort.Store(true)
	// rdvPeer is stored after src and seq, so reading it first makes them
	// safe to read.
	if src := r.rdvPeer.Load(); src > 0 && w.unregister(int(src-1), r.seq, r) {
		r.fail(err)
	}
}
