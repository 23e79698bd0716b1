package task

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// TestNestedLoops: tasks start loops (T.ParallelFor) whose iterations
// send tasks to other ranks (T.SpawnOn); one group covers them all, so
// every rank's Wait returns after the last of them.
func TestNestedLoops(t *testing.T) {
	const outer, inner = 8, 50
	hits := make([]atomic.Int32, outer*inner)
	leaves := make([]atomic.Int32, outer*inner)
	var start Func
	j := newJob(t, 3, Config{Workers: 3, Grain: 2}, func(rank int, p *Pool) {
		leaf := must(p.Register("leaf", func(_ context.Context, _ *T, args []byte) error {
			i, err := Int(args, 0)
			if err == nil {
				time.Sleep(10 * time.Microsecond)
				leaves[i].Add(1)
			}
			return err
		}))
		body := must(p.RegisterLoop("body", func(_ context.Context, t *T, i int64) error {
			hits[i].Add(1)
			return t.SpawnOn(int(i)%t.Size(), leaf, Ints(i))
		}))
		f := must(p.Register("outer", func(_ context.Context, t *T, args []byte) error {
			k, err := Int(args, 0)
			if err != nil {
				return err
			}
			return t.ParallelFor(k*inner, inner, body)
		}))
		if rank == 0 {
			start = f
		}
	})
	ctx := testCtx(t)
	var late atomic.Int64
	errs := j.each(func(rank int, p *Pool) error {
		g, err := p.NewGroup()
		if err != nil {
			return err
		}
		if rank == 1 {
			for k := range int64(outer) {
				if err := g.Spawn(start, Ints(k)); err != nil {
					return err
				}
			}
		}
		err = g.Wait(ctx)
		for i := range leaves {
			if leaves[i].Load() != 1 {
				late.Add(1)
			}
		}
		return err
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	checkOnce(t, hits, 0)
	checkOnce(t, leaves, 0)
	if n := late.Load(); n != 0 {
		t.Errorf("%d leaves had not run when a Wait returned", n)
	}
}

// TestTransports: the unbalanced loop runs every index exactly once,
// with steals, between ranks over shared memory and over TCP.
func TestTransports(t *testing.T) {
	for _, tr := range []string{"shm", "tcp"} {
		t.Run(tr, func(t *testing.T) {
			ws := transportWorlds(t, tr, 2)
			const n = 1000
			hits := make([]atomic.Int32, n)
			var loop Loop
			j := newJobOver(t, ws, Config{Workers: 4, Grain: 4}, func(rank int, p *Pool) {
				l := must(p.RegisterLoop("count", unbalanced(hits, n, 100*time.Microsecond)))
				if rank == 0 {
					loop = l
				}
			})
			ctx := testCtx(t)
			for r, err := range j.each(func(_ int, p *Pool) error { return p.ParallelFor(ctx, 0, n, loop) }) {
				if err != nil {
					t.Fatalf("rank %d: %v", r, err)
				}
			}
			checkOnce(t, hits, 0)
			if s := j.stats(); s.Steals == 0 {
				t.Errorf("stats %+v: no steals", s)
			}
		})
	}
}

// transportWorlds makes n worlds over transport tr ("shm" or "tcp") in
// this process, closed when t ends.
func transportWorlds(t testing.TB, tr string, n int) []*comm.World {
	t.Helper()
	var ws []*comm.World
	var err error
	switch tr {
	case "shm":
		dir, derr := os.MkdirTemp(shm.DefaultDir, "plexus-task-test-")
		if derr != nil {
			t.Skip(derr)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		ws, err = commtest.SHMWorlds(n, "task-test", dir, comm.Config{})
	case "tcp":
		ws, err = commtest.TCPWorlds(n, "task-test", comm.Config{})
	default:
		err = fmt.Errorf("no transport %q", tr)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		t.Cleanup(func() { w.Close() })
	}
	return ws
}
