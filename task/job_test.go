package task

import (
	"context"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/internal/jobtest"
)

// job is n ranks in one process over a commtest twin, each with an am
// engine and a pool.
type job struct {
	twin  *commtest.Twin
	es    []*am.Engine
	pools []*Pool
}

// newJob makes n ranks with pools of cfg; reg registers each rank's
// task functions (it may be nil), on one goroutine per rank.
func newJob(t testing.TB, n int, cfg Config, reg func(rank int, p *Pool)) *job {
	t.Helper()
	twin, ws := jobtest.TwinWorlds(t, n)
	j := newJobOver(t, ws, cfg, reg)
	j.twin = twin
	return j
}

// newJobOver is newJob over given worlds, one per rank; when t ends each
// rank's pool is closed and then its engine.
func newJobOver(t testing.TB, ws []*comm.World, cfg Config, reg func(rank int, p *Pool)) *job {
	t.Helper()
	es, pools := jobtest.Engines(t, ws, func(r int, w *comm.World) (*am.Engine, *Pool, error) {
		return start(w, r, cfg, reg)
	}, func(p *Pool) { p.Close(context.Background()) })
	return &job{es: es, pools: pools}
}

// start is one rank's start: a pool of cfg, its task functions
// registered by reg (if not nil), bound to a new engine of w.
func start(w *comm.World, rank int, cfg Config, reg func(rank int, p *Pool)) (*am.Engine, *Pool, error) {
	return jobtest.Start(w, func(ar *am.Registry) (*Pool, error) {
		p, err := New(ar, cfg)
		if err == nil && reg != nil {
			reg(rank, p)
		}
		return p, err
	})
}

// each runs f on every rank at once, as the ranks of a job would, and
// returns their errors.
func (j *job) each(f func(rank int, p *Pool) error) []error {
	return jobtest.Each(len(j.pools), func(r int) error { return f(r, j.pools[r]) })
}

func (j *job) stats() Stats {
	var s Stats
	for _, p := range j.pools {
		x := p.Stats()
		s.Tasks += x.Tasks
		s.StealAttempts += x.StealAttempts
		s.Steals += x.Steals
		s.Stolen += x.Stolen
		s.Given += x.Given
		s.Waves += x.Waves
	}
	return s
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
