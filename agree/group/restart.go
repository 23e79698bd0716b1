package group

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/agree"
)

// compact hands the protocol a snapshot when CompactEvery slots were
// applied since the last one. It runs right after the decisions of a
// Ready were applied, so the snapshot is the state at the node's
// applied slot.
func (r *Replica) compact() {
	if r.cfg.CompactEvery == 0 || r.cfg.Snapshot == nil {
		return
	}
	st := r.node.Status()
	if st.Applied < st.Compacted+r.cfg.CompactEvery {
		return
	}
	if err := r.node.Compact(st.Applied, r.cfg.Snapshot()); err != nil {
		r.cfg.Log.Warn("group: compaction refused", "replica", r.ID(), "err", err)
	}
}

// Status returns the protocol's state of the replica. It must be called
// on the replica's goroutine: from Apply, Restore, OnTick or a Call.
func (r *Replica) Status() agree.Status { return r.node.Status() }

// Restart makes the replica lose its state, as a process that restarts
// with empty memory does, and come back: on the replica's goroutine,
// lost is called (the caller empties the state Apply built) and the
// protocol's node is replaced by a restarted one (agree.Config.Restarted),
// which recovers from the other replicas, installs their snapshot
// through Restore and applies the entries after it. The replica keeps
// its place on the Net, so this is how a replica restarts inside a
// running process; Restart returns once the new node is in place.
func (r *Replica) Restart(ctx context.Context, lost func()) error {
	cfg := r.cfg.Agree
	cfg.Restarted = true
	errc := make(chan error, 1)
	err := r.Call(ctx, func(*agree.Node) {
		n, err := agree.New(cfg)
		if err != nil {
			errc <- fmt.Errorf("%w: %w", ErrConfig, err)
			return
		}
		r.node = n
		if lost != nil {
			lost()
		}
		errc <- nil
	})
	if err != nil {
		return err
	}
	select {
	case err := <-errc:
		return err
	case <-r.done:
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}
