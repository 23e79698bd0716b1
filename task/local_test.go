package task

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// TestForLocalStaysHome: rank 0 queues a slow local range while rank 1
// has none and steals (stealing is on); every iteration runs exactly
// once and on rank 0. The same loop through ParallelFor's stealable
// pieces is stolen (TestParallelForExactlyOnce), so this fails if
// ForLocal's pieces ever reached the public queue.
func TestForLocalStaysHome(t *testing.T) {
	const n = 200
	hits := make([]atomic.Int32, n)
	ranOn := make([]atomic.Int32, n)
	var loop Loop
	j := newJob(t, 2, Config{Workers: 2, Grain: 1}, func(rank int, p *Pool) {
		l := must(p.RegisterLoop("slow", func(_ context.Context, t *T, i int64) error {
			hits[i].Add(1)
			ranOn[i].Store(int32(t.Rank()))
			time.Sleep(100 * time.Microsecond)
			return nil
		}))
		if rank == 0 {
			loop = l
		}
	})
	ctx := testCtx(t)
	for _, err := range j.each(func(rank int, p *Pool) error {
		if rank == 0 {
			return p.ForLocal(ctx, 0, n, loop)
		}
		return p.ForLocal(ctx, n, 0, loop)
	}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkOnce(t, hits, 0)
	for i := range ranOn {
		if r := ranOn[i].Load(); r != 0 {
			t.Fatalf("index %d of rank 0's local range ran on rank %d", i, r)
		}
	}
	if s := j.stats(); s.StealAttempts == 0 || s.Stolen != 0 {
		t.Errorf("stats %+v: want the idle rank to try to steal, and nothing stolen", s)
	}
}

// TestForLocalCoversSpawns: on 3 ranks each rank loops over its own
// block of indices, and every iteration spawns a task on the next rank;
// when ForLocal returns on a rank, every iteration and every spawned
// task of every rank has run, on the right ranks.
func TestForLocalCoversSpawns(t *testing.T) {
	const ranks, per = 3, 97
	hits := make([]atomic.Int32, ranks*per)
	echoed := make([]atomic.Int32, ranks*per)
	var loop Loop
	j := newJob(t, ranks, Config{Workers: 3}, func(rank int, p *Pool) {
		echo := must(p.Register("echo", func(_ context.Context, t *T, args []byte) error {
			i, err := Int(args, 0)
			if err != nil {
				return err
			}
			if want := (int(i)/per + 1) % ranks; t.Rank() != want {
				return fmt.Errorf("echo of %d on rank %d, want %d", i, t.Rank(), want)
			}
			echoed[i].Add(1)
			return nil
		}))
		l := must(p.RegisterLoop("own", func(_ context.Context, t *T, i int64) error {
			if int(i)/per != t.Rank() {
				return fmt.Errorf("index %d on rank %d", i, t.Rank())
			}
			hits[i].Add(1)
			return t.SpawnOn((t.Rank()+1)%ranks, echo, Ints(i))
		}))
		if rank == 0 {
			loop = l
		}
	})
	ctx := testCtx(t)
	for round := range 3 {
		for _, err := range j.each(func(rank int, p *Pool) error { return p.ForLocal(ctx, int64(rank*per), per, loop) }) {
			if err != nil {
				t.Fatal(err)
			}
		}
		for i := range hits {
			if h, e := hits[i].Load(), echoed[i].Load(); h != int32(round+1) || e != int32(round+1) {
				t.Fatalf("round %d: index %d ran %d times and echoed %d, want %d", round, i, h, e, round+1)
			}
		}
	}
}

// TestForLocalBadInput: a bad loop or range fails at the caller with
// the loop's sentinel, and the collective form still ends on every rank.
func TestForLocalBadInput(t *testing.T) {
	var loop Loop
	j := newJob(t, 2, Config{Workers: 2}, func(rank int, p *Pool) {
		l := must(p.RegisterLoop("nop", func(context.Context, *T, int64) error { return nil }))
		if rank == 0 {
			loop = l
		}
	})
	ctx := testCtx(t)
	errs := j.each(func(rank int, p *Pool) error {
		if rank == 0 {
			return p.ForLocal(ctx, 0, -1, loop)
		}
		return p.ForLocal(ctx, 0, 10, loop)
	})
	if !errors.Is(errs[0], ErrBadRange) || errs[1] != nil {
		t.Errorf("errors %v: want ErrBadRange at rank 0 only", errs)
	}
	for _, err := range j.each(func(_ int, p *Pool) error {
		g, err := p.NewGroup()
		if err != nil {
			return err
		}
		bad := []error{g.ForLocal(0, 5, Loop{}), g.ForLocal(maxInt64, 2, loop)}
		if err := g.Wait(ctx); err != nil {
			return err
		}
		if !errors.Is(bad[0], ErrBadFunc) || !errors.Is(bad[1], ErrBadRange) {
			return fmt.Errorf("errors %v: want ErrBadFunc, ErrBadRange", bad)
		}
		return nil
	}) {
		if err != nil {
			t.Error(err)
		}
	}
}
