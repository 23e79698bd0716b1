package comm

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// What a mux passes on to the transport that reaches a peer: polling,
// single-copy pulls, signal counters, eager frames and flushes, each to
// the local transport for ranks on this host and to the remote one
// otherwise, looked up in the routes Route published.

// Poll polls the transport that reaches peer, or both if peer is negative,
// when it is a poller (see poller).
func (m *mux) Poll(peer int) bool {
	p, local, ok := m.poller(peer)
	if peer >= 0 {
		return ok && p.Poll(local)
	}
	rp, lp := m.pollers()
	got := rp != nil && rp.Poll(-1)
	if lp != nil && lp.Poll(-1) {
		got = true
	}
	return got
}

// PollUntil is Poll with PollUntil's early return, where the transport
// that reaches peer can do it.
func (m *mux) PollUntil(peer int, done interface{ Done() bool }) bool {
	rt := m.routes.Load()
	if rt == nil || peer < 0 || peer >= len(rt.index) {
		return m.Poll(peer)
	}
	if i := rt.index[peer]; i >= 0 && rt.localU != nil {
		return rt.localU.PollUntil(i, done)
	}
	return m.Poll(peer)
}

// PollDone passes PollDone to the transports Poll polled.
func (m *mux) PollDone(peer int) {
	if p, local, ok := m.poller(peer); ok && peer >= 0 {
		p.PollDone(local)
		return
	}
	rp, lp := m.pollers()
	if rp != nil {
		rp.PollDone(-1)
	}
	if lp != nil {
		lp.PollDone(-1)
	}
}

// pollers returns the remote and the local transport as Pollers, each nil
// if it is not one (or, for local, not open yet); looked up once, not per
// poll.
func (m *mux) pollers() (remote, local poller) {
	if rt := m.routes.Load(); rt != nil {
		return rt.remoteP, rt.localP
	}
	return m.remoteP, nil
}

// poller returns the transport that reaches peer, if it can be polled, and
// peer's number on it.
func (m *mux) poller(peer int) (poller, int, bool) {
	rt := m.routes.Load()
	if rt == nil || peer < 0 || peer >= len(rt.index) {
		return nil, 0, false
	}
	if i := rt.index[peer]; i >= 0 {
		return rt.localP, i, rt.localP != nil
	}
	return rt.remoteP, peer, rt.remoteP != nil
}

// PullableBy reports whether peer can pull from this rank over the
// transport that reaches it (see puller).
func (m *mux) PullableBy(peer int) bool {
	p, n, ok := m.puller(peer)
	return ok && p.PullableBy(n)
}

// Pull pulls from peer over the transport that reaches it, if that
// transport is a puller (see puller).
func (m *mux) Pull(peer int, addr uint64, dst []byte) error {
	p, n, ok := m.puller(peer)
	if !ok {
		return fmt.Errorf("comm: mux: rank %d cannot be pulled from", peer)
	}
	return p.Pull(n, addr, dst)
}

// puller returns the transport that reaches peer, if it is a puller, and
// peer's number on it.
func (m *mux) puller(peer int) (puller, int, bool) {
	rt := m.routes.Load()
	if rt == nil || peer < 0 || peer >= len(rt.index) {
		return nil, 0, false
	}
	t, n := m.remote, peer
	if i := rt.index[peer]; i >= 0 {
		t, n = rt.local, i
	}
	p, ok := t.(puller)
	return p, n, ok
}

// signaller returns the signaller that reaches peer and peer's number on
// it, if peer is on this host and the local transport keeps counters.
func (m *mux) signaller(peer int) (signaller, int, bool) {
	rt := m.routes.Load()
	if rt == nil || rt.localS == nil || peer < 0 || peer >= len(rt.index) || rt.index[peer] < 0 {
		return nil, 0, false
	}
	return rt.localS, rt.index[peer], true
}

// SignalSlots is signaller's: the local transport's for ranks on this
// host, none for the others.
func (m *mux) SignalSlots(peer int) int {
	if s, i, ok := m.signaller(peer); ok {
		return s.SignalSlots(i)
	}
	return 0
}

// Signals is signaller's, for a rank on this host.
func (m *mux) Signals(peer, slot int) (uint64, error) {
	if s, i, ok := m.signaller(peer); ok {
		return s.Signals(i, slot)
	}
	return 0, fmt.Errorf("comm: mux: rank %d keeps no signal counters with this rank", peer)
}

// SignalWord is signaller's: the local transport's word for a rank on
// this host, nil for the others.
func (m *mux) SignalWord(peer, slot int) *atomic.Uint64 {
	if s, i, ok := m.signaller(peer); ok {
		return s.SignalWord(i, slot)
	}
	return nil
}

// SignalTx is signaller's: the local transport's words for a rank on this
// host, nils for the others.
func (m *mux) SignalTx(peer, slot int) (*atomic.Uint64, *atomic.Uint32) {
	if s, i, ok := m.signaller(peer); ok {
		return s.SignalTx(i, slot)
	}
	return nil, nil
}

// SendEager is Send for an eager frame (eagerSender), passed on as such
// where the transport that reaches peer takes it.
func (m *mux) SendEager(ctx context.Context, peer int, comm uint32, tag int32, payload []byte) error {
	if t, local, ok := m.eagerRoute(peer); ok {
		return t.SendEager(ctx, local, comm, tag, payload)
	}
	return m.Send(ctx, peer, frame.Header{Kind: frame.Eager, Comm: comm, Tag: tag, Aux: uint64(len(payload))}, payload)
}

// QueueEager is Queue for an eager frame (eagerSender), passed on as such
// where the transport that reaches peer takes it.
func (m *mux) QueueEager(ctx context.Context, peer int, comm uint32, tag int32, payload []byte) error {
	if t, local, ok := m.eagerRoute(peer); ok {
		return t.QueueEager(ctx, local, comm, tag, payload)
	}
	return m.Queue(ctx, peer, frame.Header{Kind: frame.Eager, Comm: comm, Tag: tag, Aux: uint64(len(payload))}, payload)
}

// eagerRoute returns the local transport as an eagerSender and peer's
// number on it, if peer is reached locally and the transport is one.
func (m *mux) eagerRoute(peer int) (eagerSender, int, bool) {
	rt := m.routes.Load()
	if rt == nil || rt.localE == nil || peer < 0 || peer >= len(rt.index) || rt.index[peer] < 0 {
		return nil, 0, false
	}
	return rt.localE, rt.index[peer], true
}

// Flush writes the frames the transports hold back, where they do
// (flusher).
func (m *mux) Flush() {
	if rt := m.routes.Load(); rt != nil && rt.localF != nil {
		rt.localF.Flush()
	}
	if m.remoteF != nil {
		m.remoteF.Flush()
	}
}

// Passive reports whether every rank is reached through a passive local
// transport (Direct, a sleeper): the mux then receives only when polled.
func (m *mux) Passive() bool {
	s, ok := m.Direct().(sleeper)
	return ok && s.Passive()
}

// Sleep passes Sleep to the transport that reaches every rank, if any.
func (m *mux) Sleep(ctx context.Context, ready func() bool) {
	if s, ok := m.Direct().(sleeper); ok {
		s.Sleep(ctx, ready)
	}
}

// ScopeOf returns ScopeLocal for a peer on this host, ScopeRemote for
// one on another, and ScopeAll before Route has said which.
func (m *mux) ScopeOf(peer int) uint {
	rt := m.routes.Load()
	switch {
	case rt == nil || peer < 0 || peer >= len(rt.index):
		return ScopeAll
	case rt.index[peer] >= 0:
		return ScopeLocal
	}
	return ScopeRemote
}

// PollScope polls the transports of scope from every peer: the local one
// with PollUntil's early return where it has it.
func (m *mux) PollScope(scope uint, done interface{ Done() bool }) bool {
	rt := m.routes.Load()
	if rt == nil || scope&ScopeAll == ScopeAll {
		return m.Poll(-1)
	}
	got := false
	if scope&ScopeRemote != 0 && rt.remoteP != nil {
		got = rt.remoteP.Poll(-1)
	}
	if scope&ScopeLocal != 0 {
		switch {
		case rt.localU != nil:
			got = rt.localU.PollUntil(-1, done) || got
		case rt.localP != nil:
			got = rt.localP.Poll(-1) || got
		}
	}
	return got
}
