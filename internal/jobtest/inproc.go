package jobtest

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

// TwinWorlds returns the twin connecting n ranks in this process and
// its n worlds, default-configured; each world is closed when t ends.
func TwinWorlds(t testing.TB, n int) (*commtest.Twin, []*comm.World) {
	t.Helper()
	twin := commtest.NewTwin(n)
	ws := make([]*comm.World, n)
	for r := range n {
		w, err := twin.World(r, comm.Config{})
		if err != nil {
			t.Fatal(err)
		}
		ws[r] = w
		t.Cleanup(func() { w.Close() })
	}
	return twin, ws
}

// Engines runs start for every world at once, one goroutine per rank,
// as the ranks of a job start, and returns each rank's engine and state;
// any error fails t. When t ends each rank's state is stopped (stop may
// be nil) and then its engine closed, last rank first.
func Engines[S any](t testing.TB, ws []*comm.World, start func(rank int, w *comm.World) (*am.Engine, S, error), stop func(S)) ([]*am.Engine, []S) {
	t.Helper()
	n := len(ws)
	es, ss, errs := make([]*am.Engine, n), make([]S, n), make([]error, n)
	var wg sync.WaitGroup
	for r, w := range ws {
		wg.Go(func() { es[r], ss[r], errs[r] = start(r, w) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for r := range n {
		t.Cleanup(func() {
			if stop != nil {
				stop(ss[r])
			}
			es[r].Close(context.Background())
		})
	}
	return es, ss
}

// Each runs f for every rank of n at once and returns their errors,
// indexed by rank.
func Each(n int, f func(rank int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Go(func() { errs[r] = f(r) })
	}
	wg.Wait()
	return errs
}

// OnWorlds runs f as every rank of ws at once, closing each world when
// its f returns, and returns their errors joined.
func OnWorlds(ws []*comm.World, f func(w *comm.World) error) error {
	return errors.Join(Each(len(ws), func(r int) error {
		defer ws[r].Close()
		return f(ws[r])
	})...)
}

// Binder is a rank's state that serves an am engine once bound to it, as
// a task.Pool or a pgas.Heap does.
type Binder interface{ Bind(e *am.Engine) error }

// Start is one rank's start over w: mk makes the rank's state over a
// fresh am.Registry (registering its handlers there), then an engine of
// the registry starts, given ten seconds, and the state is bound to it.
func Start[S Binder](w *comm.World, mk func(reg *am.Registry) (S, error)) (*am.Engine, S, error) {
	var reg am.Registry
	s, err := mk(&reg)
	if err != nil {
		return nil, s, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e, err := am.New(ctx, w, &reg, am.Config{})
	if err != nil {
		return nil, s, err
	}
	return e, s, s.Bind(e)
}
