package pgas

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
	twin, ws := jobtest.TwinWorlds(t, n)
	j := newJobOver(t, ws, cfg, funcs)
	j.twin = twin
	return j
}

// newJobOver is newJob over given worlds, one per rank.
func newJobOver(t testing.TB, ws []*comm.World, cfg Config, funcs func(rank int, h *Heap)) *job {
	t.Helper()
	es, hs := jobtest.Engines(t, ws, func(r int, w *comm.World) (*am.Engine, *Heap, error) {
		return start(w, r, cfg, funcs)
	}, nil)
	return &job{es: es, hs: hs}
}

// start is one rank's start: a heap of cfg, its Funcs registered by
// funcs (if not nil), bound to a new engine of w.
func start(w *comm.World, rank int, cfg Config, funcs func(rank int, h *Heap)) (*am.Engine, *Heap, error) {
	return jobtest.Start(w, func(reg *am.Registry) (*Heap, error) {
		h, err := New(reg, cfg)
		if err == nil && funcs != nil {
			funcs(rank, h)
		}
		return h, err
	})
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
