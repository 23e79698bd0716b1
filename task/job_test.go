package task

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
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
	var ws []*comm.World
	twin := newTwinWorlds(t, n, &ws)
	j := newJobOver(t, ws, cfg, reg)
	j.twin = twin
	return j
}

// newTwinWorlds makes the n worlds of a twin, closed when t ends.
func newTwinWorlds(t testing.TB, n int, ws *[]*comm.World) *commtest.Twin {
	t.Helper()
	twin := commtest.NewTwin(n)
	*ws = make([]*comm.World, n)
	for r := range n {
		w, err := twin.World(r, comm.Config{})
		if err != nil {
			t.Fatal(err)
		}
		(*ws)[r] = w
		t.Cleanup(func() { w.Close() })
	}
	return twin
}

// eachWorld runs f for every world at once and returns their errors.
func (j *job) eachWorld(ws []*comm.World, f func(rank int, w *comm.World) error) []error {
	errs := make([]error, len(ws))
	var wg sync.WaitGroup
	for r, w := range ws {
		wg.Go(func() { errs[r] = f(r, w) })
	}
	wg.Wait()
	return errs
}

// newJobOver is newJob over given worlds, one per rank.
func newJobOver(t testing.TB, ws []*comm.World, cfg Config, reg func(rank int, p *Pool)) *job {
	t.Helper()
	n := len(ws)
	j := &job{es: make([]*am.Engine, n), pools: make([]*Pool, n)}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Go(func() { j.es[r], j.pools[r], errs[r] = start(ws[r], r, cfg, reg) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for r := range n {
		t.Cleanup(func() {
			j.pools[r].Close(context.Background())
			j.es[r].Close(context.Background())
		})
	}
	return j
}

func start(w *comm.World, rank int, cfg Config, reg func(rank int, p *Pool)) (*am.Engine, *Pool, error) {
	var ar am.Registry
	p, err := New(&ar, cfg)
	if err != nil {
		return nil, nil, err
	}
	if reg != nil {
		reg(rank, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e, err := am.New(ctx, w, &ar, am.Config{})
	if err != nil {
		return nil, nil, err
	}
	return e, p, p.Bind(e)
}

// each runs f on every rank at once, as the ranks of a job would, and
// returns their errors.
func (j *job) each(f func(rank int, p *Pool) error) []error {
	errs := make([]error, len(j.pools))
	var wg sync.WaitGroup
	for r, p := range j.pools {
		wg.Go(func() { errs[r] = f(r, p) })
	}
	wg.Wait()
	return errs
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
