package coll

import (
	"context"
	"fmt"
)

// Barrier returns once every member has entered it: Smelt's two-line
// barrier (§4.2.2), a zero-payload reduction up the reduction tree and a
// zero-payload broadcast down the broadcast tree.
func (m *Member) Barrier(ctx context.Context) error {
	if err := m.gather(ctx, nil, nil); err != nil {
		return err
	}
	if m.root {
		return m.fanout(ctx, nil)
	}
	if err := m.send(ctx, m.rparent, nil); err != nil {
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
