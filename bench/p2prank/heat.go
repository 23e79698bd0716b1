package p2prank

import (
	"time"

	"github.com/plexus-hpc/plexus/bench"
)

// Heating. A rank that slept through its start (the bootstrap, the first
// barrier) runs its first few milliseconds of messages slower than the
// rest, by a large fraction of a sub-microsecond latency, and a short
// spell of busy CPU before the first case removes the difference
// (docs/benchmarks.md, section "Bound ranks, allocation-free windows, 2
// KiB stacks for a million waiters", 2026-11-22). Open
// MPI's ranks spin from MPI_Init on, so they start hot. So, as the C
// programs do (common.h), the first case's warm-up repeats until bench.HeatFor
// has passed, rank 0 deciding after each round and telling the others.

// heat runs round, the first case's warm-up, until bench.HeatFor has passed,
// the first time it is called; later calls do nothing.
func (r *rank) heat(round func() error) error {
	if r.heated {
		return nil
	}
	r.heated = true
	start := time.Now()
	for {
		if err := round(); err != nil {
			return err
		}
		more, err := r.decide(time.Since(start) < bench.HeatFor)
		if err != nil || !more {
			return err
		}
	}
}

// decide sends rank 0's yes or no to every other rank and returns it.
func (r *rank) decide(yes bool) (bool, error) {
	msg := []byte{0}
	if r.w.Rank() != 0 {
		_, err := r.w.Recv(r.ctx, 0, tagHeat, msg)
		return msg[0] == 1, err
	}
	if yes {
		msg[0] = 1
	}
	for peer := 1; peer < r.w.Size(); peer++ {
		if err := r.w.Send(r.ctx, peer, tagHeat, msg); err != nil {
			return false, err
		}
	}
	return yes, nil
}
