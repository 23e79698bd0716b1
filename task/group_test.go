package task

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

// tree registers "node": a task that, above depth 0, spawns two
// children one level down, one on the next rank with SpawnOn and one
// stealable here, after a pause so that spawns are in flight while
// other ranks look idle. It counts the nodes run on each rank.
func tree(ran []atomic.Int64, node *Func) func(rank int, p *Pool) {
	return func(rank int, p *Pool) {
		f := must(p.Register("node", func(_ context.Context, t *T, args []byte) error {
			ran[t.Rank()].Add(1)
			depth, err := Int(args, 0)
			if err != nil || depth == 0 {
				return err
			}
			time.Sleep(20 * time.Microsecond)
			if err := t.SpawnOn((t.Rank()+1)%t.Size(), *node, Ints(depth-1)); err != nil {
				return err
			}
			return t.Spawn(*node, Ints(depth-1))
		}))
		if rank == 0 {
			*node = f
		}
	}
}

// TestGroupTree: a binary tree of tasks spawned by tasks, across ranks,
// finishes before every rank's Wait returns, each node exactly once.
func TestGroupTree(t *testing.T) {
	for _, ranks := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("ranks=%d", ranks), func(t *testing.T) {
			const depth = 9
			ran := make([]atomic.Int64, ranks)
			var node Func
			j := newJob(t, ranks, Config{Workers: 4}, tree(ran, &node))
			ctx := testCtx(t)
			var total [3]int64
			errs := j.each(func(rank int, p *Pool) error {
				g, err := p.NewGroup()
				if err != nil {
					return err
				}
				if rank == ranks-1 { // the root is spawned away from the master
					if err := g.Spawn(node, Ints(depth)); err != nil {
						return err
					}
				}
				err = g.Wait(ctx)
				for r := range ran {
					total[rank] += ran[r].Load() // every node ran before Wait returned
				}
				return err
			})
			want := int64(1)<<(depth+1) - 1
			for r, err := range errs {
				if err != nil {
					t.Fatalf("rank %d: %v", r, err)
				}
				if total[r] != want {
					t.Errorf("rank %d: Wait returned after %d nodes of %d", r, total[r], want)
				}
			}
			for r := range ranks {
				if ran[r].Load() == 0 {
					t.Errorf("rank %d ran no node", r)
				}
			}
		})
	}
}

// TestGroupSequence: groups made one after another, some empty, some
// whose only task is sent to another rank, all end; spawning into a
// waited group fails with ErrDone.
func TestGroupSequence(t *testing.T) {
	var ran atomic.Int64
	var f Func
	j := newJob(t, 3, Config{Workers: 2}, func(rank int, p *Pool) {
		x := must(p.Register("one", func(context.Context, *T, []byte) error { ran.Add(1); return nil }))
		if rank == 0 {
			f = x
		}
	})
	ctx := testCtx(t)
	for round := range 20 {
		errs := j.each(func(rank int, p *Pool) error {
			g, err := p.NewGroup()
			if err != nil {
				return err
			}
			if round%2 == 1 && rank == round%3 {
				if err := g.SpawnOn((rank+1)%3, f, nil); err != nil {
					return err
				}
			}
			if err := g.Wait(ctx); err != nil {
				return err
			}
			if err := g.Spawn(f, nil); !errors.Is(err, ErrDone) {
				return fmt.Errorf("spawn after Wait: %v, want ErrDone", err)
			}
			return nil
		})
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if got, want := ran.Load(), int64((round+1)/2); got != want {
			t.Fatalf("after round %d: %d tasks ran, want %d", round, got, want)
		}
	}
	for r, p := range j.pools {
		p.mu.Lock()
		left := len(p.groups)
		p.mu.Unlock()
		if left != 0 {
			t.Errorf("rank %d keeps %d finished groups", r, left)
		}
	}
}

// TestTaskError: a loop iteration's error fails ParallelFor on every
// rank with ErrTask naming the index, and the pool goes on working.
func TestTaskError(t *testing.T) {
	var loop Loop
	j := newJob(t, 3, Config{Workers: 2}, func(rank int, p *Pool) {
		l := must(p.RegisterLoop("fail7", func(_ context.Context, _ *T, i int64) error {
			if i == 7 {
				return errors.New("seven is bad")
			}
			return nil
		}))
		if rank == 0 {
			loop = l
		}
	})
	ctx := testCtx(t)
	for r, err := range j.each(func(_ int, p *Pool) error { return p.ParallelFor(ctx, 0, 30, loop) }) {
		if !errors.Is(err, ErrTask) || !strings.Contains(err.Error(), "index 7: seven is bad") {
			t.Errorf("rank %d: %v; want ErrTask about index 7", r, err)
		}
	}
	for r, err := range j.each(func(_ int, p *Pool) error { return p.ParallelFor(ctx, 8, 30, loop) }) {
		if err != nil {
			t.Errorf("rank %d, next loop: %v", r, err)
		}
	}
}

// TestLostRank: a rank that dies while a group's tasks run makes every
// other rank's ParallelFor, and its Wait, fail with comm.ErrPeerLost
// instead of waiting for ever, whether it is the master (rank 0) or not.
// The dying rank holds a task of its own (SpawnOn itself: never stolen)
// that runs until it dies; the other ranks run a loop.
func TestLostRank(t *testing.T) {
	for _, victim := range []int{0, 2} {
		t.Run(fmt.Sprintf("lost=%d", victim), func(t *testing.T) {
			started := make(chan struct{})
			var stuck Func
			var loop Loop
			j := newJob(t, 3, Config{Workers: 2, Grain: 1}, func(rank int, p *Pool) {
				f := must(p.Register("stuck", func(ctx context.Context, _ *T, _ []byte) error {
					close(started)
					<-ctx.Done() // a task that never ends while its rank lives
					return nil
				}))
				l := must(p.RegisterLoop("slow", func(context.Context, *T, int64) error {
					time.Sleep(100 * time.Microsecond)
					return nil
				}))
				if rank == 0 {
					stuck, loop = f, l
				}
			})
			ctx := testCtx(t)
			go func() {
				<-started
				j.twin.Kill(victim)
			}()
			errs := j.each(func(rank int, p *Pool) error {
				g, err := p.NewGroup()
				if err != nil {
					return err
				}
				if rank == victim {
					err = g.SpawnOn(rank, stuck, nil)
				} else {
					err = g.ParallelFor(0, 1000, loop)
				}
				return errors.Join(err, g.Wait(ctx))
			})
			for r, err := range errs {
				if r != victim && !errors.Is(err, comm.ErrPeerLost) {
					t.Errorf("rank %d: %v; want ErrPeerLost", r, err)
				}
			}
		})
	}
}

// TestAbandon: a rank whose Wait gives up (its ctx ends) while a task
// of the group still runs makes the other ranks' Waits fail with
// ErrAbandoned rather than wait for ever, whether it is the master or
// not.
func TestAbandon(t *testing.T) {
	for _, quitter := range []int{0, 2} {
		t.Run(fmt.Sprintf("quitter=%d", quitter), func(t *testing.T) {
			release := make(chan struct{})
			var hold Func
			j := newJob(t, 3, Config{Workers: 2}, func(rank int, p *Pool) {
				f := must(p.Register("hold", func(ctx context.Context, _ *T, _ []byte) error {
					select {
					case <-release:
					case <-ctx.Done():
					}
					return nil
				}))
				if rank == 0 {
					hold = f
				}
			})
			defer close(release)
			ctx := testCtx(t)
			errs := j.each(func(rank int, p *Pool) error {
				g, err := p.NewGroup()
				if err != nil {
					return err
				}
				if rank == 1 {
					if err := g.SpawnOn(1, hold, nil); err != nil {
						return err
					}
				}
				wctx := ctx
				if rank == quitter {
					c, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
					defer cancel()
					wctx = c
				}
				return g.Wait(wctx)
			})
			for r, err := range errs {
				want := ErrAbandoned
				if r == quitter {
					want = context.DeadlineExceeded
				}
				if !errors.Is(err, want) {
					t.Errorf("rank %d: %v; want %v", r, err, want)
				}
			}
		})
	}
}
