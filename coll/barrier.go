package coll

import (
	"context"
	"fmt"
)

// Barrier returns once every member has entered it: Smelt's two-line
// barrier (§4.2.2), a zero-payload reduction up the reduction tree and a
// zero-payload broadcast down the broadcast tree. In a team made by
// NewTeam (members in this process) both go by mail: each member releases
// all its broadcast children at once with one write they read, so a tree
// for barriers is best built for tree.ReleaseBarrier, which the simulator
// times so. In a remote team whose links all carry signals (Signaler)
// both halves are made of signals, Smelt's optimised zero-payload
// variants; otherwise of zero-length messages.
//
// A team of two exchanges instead: each member raises the other and then
// waits for it, so the two notifications cross and the barrier takes one
// hop where the trees take two (a round trip).
func (m *Member) Barrier(ctx context.Context) error {
	if m.pair {
		return m.pairBarrier(ctx)
	}
	if m.team.signals && m.mail == nil {
		return m.signalBarrier(ctx)
	}
	return m.messageBarrier(ctx)
}

// signalBarrier is Barrier on signals: await every reduction child, raise
// the reduction parent, await the broadcast parent, raise every broadcast
// child. Why signals may be interleaved with the other collectives'
// messages is in signal.go.
func (m *Member) signalBarrier(ctx context.Context) error {
	for _, c := range m.rkids {
		if err := m.await(ctx, c); err != nil {
			return err
		}
	}
	if !m.root {
		if err := m.raise(m.rparent); err != nil {
			return err
		}
		if err := m.await(ctx, m.bparent); err != nil {
			return err
		}
	}
	for _, c := range m.bkids {
		if err := m.raise(c); err != nil {
			return err
		}
	}
	return nil
}

// pairBarrier is Barrier for a team of two: the root's one edge is both
// its reduction child and its broadcast child, the other member's both its
// parents, so each direction of the edge still carries exactly one
// notification per barrier, the count signal.go's argument relies on.
// Only the root's order changes: it raises before it awaits. Neither
// member can leave before the other has raised, that is, entered.
func (m *Member) pairBarrier(ctx context.Context) error {
	to, from := m.pairEnds()
	if m.team.signals {
		if err := m.raise(to); err != nil {
			return err
		}
		return m.await(ctx, from)
	}
	if err := m.send(ctx, to, nil); err != nil {
		return err
	}
	n, err := m.recv(ctx, from, m.rx)
	if err == nil && n != 0 {
		err = m.fail(fmt.Errorf("%w: barrier released by a %d-byte message", ErrMismatch, n))
	}
	return err
}

// messageBarrier is Barrier on zero-length messages, for transports
// without signals.
func (m *Member) messageBarrier(ctx context.Context) error {
	if err := m.gather(ctx, nil, nil); err != nil {
		return err
	}
	if m.root {
		return m.fanout(ctx, nil)
	}
	if err := m.sendUp(ctx, nil); err != nil {
		return err
	}
	n, err := m.relay(ctx, m.rx)
	if err == nil && n != 0 {
		err = m.fail(fmt.Errorf("%w: barrier released by a %d-byte message", ErrMismatch, n))
	}
	return err
}

// DisseminationBarrier is the classic dissemination barrier, kept to
// compare against Barrier: in round r member i (by position in Members)
// signals member i+2^r mod n and waits for member i-2^r mod n, for
// ceil(log2 n) rounds. Its links are separate from the trees', and each
// link direction carries one round's signals, so queued signals of a
// later barrier cannot be mistaken for this one's.
func (m *Member) DisseminationBarrier(ctx context.Context) error {
	for r, out := range m.dissOut {
		if err := m.send(ctx, out, nil); err != nil {
			return err
		}
		n, err := m.recv(ctx, m.dissIn[r], m.rx)
		if err != nil {
			return err
		}
		if n != 0 {
			return m.fail(fmt.Errorf("%w: dissemination signal of %d bytes", ErrMismatch, n))
		}
	}
	return nil
}
