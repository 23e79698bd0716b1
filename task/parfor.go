package task

import (
	"context"
	"fmt"
)

// ParallelFor runs body for every index in [start, start+n), spread over
// all ranks, and returns once every iteration, and every task the
// iterations spawned, has finished on every rank. It is collective:
// every rank calls it with the same start, n and body, in the same order
// as its other ParallelFor and NewGroup calls. Each rank starts with its
// own block of the range and splits it recursively into pieces of
// Config.Grain iterations (Grappa's forall); idle ranks steal half of a
// busy rank's queued pieces, so an unbalanced loop still ends together.
// A negative n or a range past the int64s fails with ErrBadRange on
// every rank; other errors are those of Group.Wait.
func (p *Pool) ParallelFor(ctx context.Context, start, n int64, body Loop) error {
	if n < 0 || start > maxInt64-n {
		return fmt.Errorf("%w: [%d, +%d)", ErrBadRange, start, n)
	}
	g, err := p.NewGroup()
	if err != nil {
		return err
	}
	lo, count := block(start, n, p.Rank(), p.Size())
	if err := g.ParallelFor(lo, count, body); err != nil {
		// Every rank fails alike; the empty group still ends collectively.
		_ = g.Wait(ctx)
		return err
	}
	return g.Wait(ctx)
}
