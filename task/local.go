package task

import (
	"context"
	"fmt"
)

// Loops over a rank's own data (Grappa's forall over the local elements
// of a global array): the iterations are queued in pieces in the rank's
// private queue, which thieves never see, so each runs on the rank that
// queued it, next to its data. What the body sends elsewhere (SpawnOn,
// am, pgas delegates) is how work reaches other ranks' data.

// ForLocal queues the iterations [start, start+n) of body to run on
// this rank only, in pieces of Config.Grain iterations (0: about eight
// pieces per worker here; at most 65536 pieces), and returns without waiting; Wait covers
// them. Unlike ParallelFor no iteration is ever stolen, whatever
// Config.NoSteal says: use it when an iteration needs data that only
// this rank holds.
func (g *Group) ForLocal(start, n int64, body Loop) error {
	if err := g.open(); err != nil {
		return err
	}
	return g.p.local(g.g, start, n, body)
}

// ForLocal runs body for every index in [start, start+n) on this rank's
// workers, and returns once every rank's iterations, and every task they
// spawned anywhere, have finished. It is collective, as ParallelFor is,
// but each rank names its own range (the indices of its own data), which
// may be empty; no iteration leaves its rank. Errors are those of
// Group.ForLocal and Group.Wait.
func (p *Pool) ForLocal(ctx context.Context, start, n int64, body Loop) error {
	g, err := p.NewGroup()
	if err != nil {
		return err
	}
	if err := g.ForLocal(start, n, body); err != nil {
		// The other ranks may have queued their ranges: end the group
		// with them, then report this rank's error.
		_ = g.Wait(ctx)
		return err
	}
	return g.Wait(ctx)
}

// maxLocalPieces bounds the pieces of one ForLocal range.
const maxLocalPieces = 1 << 16

// local queues [start, start+n) of body privately, in pieces no larger
// than the grain, so that runRange never splits one into the public
// queue.
func (p *Pool) local(g *group, start, n int64, body Loop) error {
	if int(body.idx) >= len(p.loops) || p.loops[body.idx].name != body.name || body.name == "" {
		return fmt.Errorf("%w: loop %q", ErrBadFunc, body.name)
	}
	if n < 0 || start > maxInt64-n {
		return fmt.Errorf("%w: [%d, +%d)", ErrBadRange, start, n)
	}
	grain := p.cfg.Grain
	if grain == 0 {
		grain = autoGrain(n, 1, p.cfg.Workers)
	}
	// The pieces are queued at once, not split as they run: bound them.
	grain = max(grain, n/maxLocalPieces+1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	for done := int64(0); done < n; {
		k := min(grain, n-done)
		it := &item{g: g, gid: g.id, kind: kindRange, fn: body.idx, lo: start + done, n: k, grain: k}
		p.activeLocked(g, 1)
		p.private.pushBack(it)
		done += k
	}
	p.work.Broadcast()
	return nil
}
