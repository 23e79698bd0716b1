package task

import "sync/atomic"

// Stats counts a pool's work since New.
type Stats struct {
	Tasks         uint64 // tasks run here; a ParallelFor piece counts as one
	StealAttempts uint64 // steal requests this rank sent
	Steals        uint64 // of them, those that brought tasks back
	Stolen        uint64 // tasks this rank took from others
	Given         uint64 // tasks other ranks took from this one
	Waves         uint64 // termination-detection waves this rank ran as master
}

// counters is Stats kept with atomics, so that workers count without
// the pool's lock.
type counters struct {
	tasks, attempts, steals, stolen, given, waves atomic.Uint64
}

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	c := &p.stats
	return Stats{
		Tasks: c.tasks.Load(), StealAttempts: c.attempts.Load(), Steals: c.steals.Load(),
		Stolen: c.stolen.Load(), Given: c.given.Load(), Waves: c.waves.Load(),
	}
}
