package comm

import (
	"fmt"

	"github.com/plexus-hpc/plexus/comm/match"
	"github.com/plexus-hpc/plexus/transport/frame"
)

// msg is an arrived message as the matching table holds it: an eager
// message with its payload in a pooled buffer, or a rendezvous
// announcement (RTS) with only its length — a large unexpected message
// never sits in memory.
type msg struct {
	kind frame.Kind
	src  int
	tag  int
	len  int
	seq  uint64
	cost int64 // charged to the sender's credit (eagerCost, rtsCost); 0 from this rank
	buf  *[]byte

	offer *offer // an RTS's offer to pull, if it made one
}

// data returns an eager message's payload.
func (m *msg) data() []byte {
	if m.buf == nil {
		return nil
	}
	return *m.buf
}

// free returns m's buffer to its pool. The msg itself is not pooled:
// Probe reads a stored msg after the table's lock is gone, so a msg must
// never be reused while anyone may still hold it.
func (m *msg) free() {
	if m.buf != nil {
		putBuf(m.buf)
		m.buf = nil
	}
}

// deliver is the transport's Deliver: it handles one frame from peer.
// It may run on the transport's reader, so it never waits on the network:
// whatever must be sent in answer is deferred to the world's poller or a
// new goroutine (World.later).
func (w *World) deliver(peer int, h frame.Header, payload []byte) {
	if peer < 0 || peer >= w.cfg.Size {
		return
	}
	if h.Comm == commLinks {
		w.deliverLink(peer, h, payload)
		return
	}
	switch h.Kind {
	case frame.Eager:
		w.onEager(peer, h, payload)
	case frame.RTS:
		w.onRTS(peer, h, payload)
	case frame.CTS:
		w.onCTS(peer, h)
	case frame.Data:
		w.onData(peer, h, payload)
	case frame.Credit:
		w.peers[peer].credit.Add(int64(h.Aux))
	}
}

// deliverEager is the transport's DeliverEager: deliver for an eager
// frame without flags, passed up without a Header.
func (w *World) deliverEager(peer int, comm uint32, tag int32, payload []byte) {
	switch {
	case peer < 0 || peer >= w.cfg.Size:
	case comm == commLinks:
		w.deliverLink(peer, frame.Header{Kind: frame.Eager, Comm: comm, Tag: tag, Aux: uint64(len(payload))}, payload)
	default:
		w.onEagerTag(peer, tag, payload)
	}
}

// onEager is MPIV's Algorithm 2: the message meets a posted receive or is
// stored. A receive already waiting gets the payload straight from the
// transport (Take finds it). Otherwise the payload is copied to a pooled
// buffer first, because a receive may take it from the table the moment it
// is stored, after payload is gone; Arrive then checks again for a receive
// posted meanwhile. This peer's frames come one at a time, so Take then
// Arrive keeps the order of its messages.
func (w *World) onEager(peer int, h frame.Header, payload []byte) {
	w.onEagerTag(peer, h.Tag, payload)
}

// onEagerTag is onEager for an eager message with tag.
func (w *World) onEagerTag(peer int, tag int32, payload []byte) {
	var cost int64
	if peer != w.cfg.Rank {
		cost = eagerCost(len(payload))
	}
	k := match.Key{Comm: commWorld, Source: int32(peer), Tag: tag}
	if r, ok, err := w.table.Take(k); err == nil && ok {
		w.oweDelivered(peer, cost)
		w.fill(r, peer, int(tag), payload)
		return
	}
	m := &msg{kind: frame.Eager, src: peer, tag: int(tag), len: len(payload), cost: cost}
	m.buf = getBuf(len(payload))
	copy(*m.buf, payload)
	w.arrive(m)
}

// deliverRun is the transport's DeliverRun: eager frames from peer that
// came together, with h's header but for their lengths. The run's posted
// receives are taken from the table with one TakeN, as the same number of
// Takes one after the other would take them; frames beyond them go one by
// one (onEager), so a receive posted meanwhile still meets them in order.
func (w *World) deliverRun(peer int, h frame.Header, payloads [][]byte) {
	if peer < 0 || peer >= w.cfg.Size {
		return
	}
	n := 0
	if h.Kind == frame.Eager && h.Comm == commWorld && peer != w.cfg.Rank {
		p := &w.peers[peer]
		if cap(p.run) < len(payloads) {
			p.run = make([]*Request, len(payloads))
		}
		reqs := p.run[:len(payloads)]
		k := match.Key{Comm: commWorld, Source: int32(peer), Tag: h.Tag}
		n, _ = w.table.TakeN(k, reqs)
		owed := int64(0)
		for i, r := range reqs[:n] {
			owed += eagerCost(len(payloads[i]))
			w.fill(r, peer, int(h.Tag), payloads[i])
		}
		w.oweDelivered(peer, owed)
		clear(reqs[:n])
	}
	for _, pl := range payloads[n:] {
		h.Aux = uint64(len(pl))
		w.deliver(peer, h, pl)
	}
}

// onRTS stores or matches a rendezvous announcement, which the sender
// charged rtsCost to its credit for (chargeRTS).
func (w *World) onRTS(peer int, h frame.Header, payload []byte) {
	m := &msg{kind: frame.RTS, src: peer, tag: int(h.Tag), len: int(h.Aux), seq: h.Seq}
	if peer != w.cfg.Rank {
		m.cost = rtsCost
	}
	m.offer = w.offerFrom(peer, h, payload)
	w.arrive(m)
}

// arrive offers m to the table. Its cost is counted as unexpected before
// it is offered, so that the count never lags what the table holds.
func (w *World) arrive(m *msg) {
	w.unexpected.Add(m.cost)
	k := match.Key{Comm: commWorld, Source: int32(m.src), Tag: int32(m.tag)}
	r, ok, err := w.table.Arrive(k, m)
	switch {
	case err != nil:
		w.unexpected.Add(-m.cost)
		m.free()
	case ok:
		w.unstore(m)
		w.take(r, m, true)
	default:
		w.probes.wake()
	}
}

// unstore uncounts m, which a receive has taken.
func (w *World) unstore(m *msg) { w.unexpected.Add(-m.cost) }

// onCTS starts pushing the data of a granted rendezvous send, or ends an
// offered one (a FIN, see offer). A grant for
// a transfer the sender has given up is answered with an abort, so the
// receiver does not wait for data that will never come.
func (w *World) onCTS(peer int, h frame.Header) {
	if h.Flags&flagPull != 0 {
		w.onFin(peer, h)
		return
	}
	p := &w.peers[peer]
	p.mu.Lock()
	r := p.sends[h.Seq]
	delete(p.sends, h.Seq)
	p.mu.Unlock()
	if r == nil {
		w.later(action{kind: actAbort, peer: peer, seq: h.Seq})
		return
	}
	w.later(action{kind: actPush, r: r, n: int(min(h.Aux, uint64(len(r.buf))))})
}

// onData copies a chunk of a rendezvous message into its receive, or
// passes a revoked offer on. The
// copy happens under the peer's lock so that a withdrawing owner, which
// takes the same lock, never returns while its buffer is being written.
func (w *World) onData(peer int, h frame.Header, payload []byte) {
	if h.Flags&flagPull != 0 {
		w.onRevoke(peer, h)
		return
	}
	p := &w.peers[peer]
	p.mu.Lock()
	r := p.recvs[h.Seq]
	if r == nil {
		p.mu.Unlock()
		return
	}
	err := w.chunk(r, h, payload)
	if err == nil && r.got < r.want {
		p.mu.Unlock()
		return
	}
	delete(p.recvs, h.Seq)
	p.mu.Unlock()
	st := Status{Source: r.src, Tag: r.msgTag, Len: r.msgLen}
	if err == nil {
		err = truncated(st, r.buf)
	}
	r.finish(st, err)
}

// chunk applies one data frame to r, or says why the transfer ends early.
// The caller holds r's peer lock.
func (w *World) chunk(r *Request, h frame.Header, payload []byte) error {
	switch {
	case h.Flags&flagAbort != 0:
		return ErrAborted
	case r.abort.Load():
		return r.cancelErr
	case h.Aux > uint64(r.want) || uint64(len(payload)) > uint64(r.want)-h.Aux:
		return fmt.Errorf("%w: data frame [%d, +%d) outside the %d bytes granted",
			ErrAborted, h.Aux, len(payload), r.want)
	}
	copy(r.buf[h.Aux:], payload)
	r.got += len(payload)
	return nil
}
