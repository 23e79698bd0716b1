package pgas

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
// engine and a heap.
type job struct {
	twin *commtest.Twin
	es   []*am.Engine
	hs   []*Heap
}

// newJob makes n ranks with heaps of cfg; funcs registers each rank's
// Funcs (it may be nil), on one goroutine per rank.
func newJob(t *testing.T, n int, cfg Config, funcs func(rank int, h *Heap)) *job {
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
	j := newJobOver(t, ws, cfg, funcs)
	j.twin = twin
	return j
}

// newJobOver is newJob over given worlds, one per rank.
func newJobOver(t testing.TB, ws []*comm.World, cfg Config, funcs func(rank int, h *Heap)) *job {
	t.Helper()
	n := len(ws)
	j := &job{es: make([]*am.Engine, n), hs: make([]*Heap, n)}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Go(func() { j.es[r], j.hs[r], errs[r] = start(ws[r], r, cfg, funcs) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for _, e := range j.es {
		t.Cleanup(func() { e.Close(context.Background()) })
	}
	return j
}

func start(w *comm.World, rank int, cfg Config, funcs func(rank int, h *Heap)) (*am.Engine, *Heap, error) {
	var reg am.Registry
	h, err := New(&reg, cfg)
	if err != nil {
		return nil, nil, err
	}
	if funcs != nil {
		funcs(rank, h)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e, err := am.New(ctx, w, &reg, am.Config{})
	if err != nil {
		return nil, nil, err
	}
	return e, h, h.Bind(e)
}

// alloc makes the same array on every rank, as a collective Alloc does.
func alloc[T Number](t testing.TB, j *job, n int) []Array[T] {
	t.Helper()
	as := make([]Array[T], len(j.hs))
	for r, h := range j.hs {
		a, err := Alloc[T](context.Background(), h, n)
		if err != nil {
			t.Fatal(err)
		}
		as[r] = a
	}
	return as
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}
