package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/task"
)

// loopPhase runs the unbalanced loop on every rank, then rank 0 gathers
// every rank's counts and checks them.
func (r *rank) loopPhase(ctx context.Context, n int64) error {
	if err := r.pool.ParallelFor(ctx, 0, n, r.loop); err != nil { // collective
		return err
	}
	if r.w.Rank() != 0 {
		return nil
	}
	total := make([]int, n)
	var steals uint64
	for src := range r.w.Size() {
		b, err := r.e.Call(ctx, src, r.counts, nil)
		if err != nil {
			return err
		}
		steals += binary.LittleEndian.Uint64(b)
		for i, c := range b[16:] {
			total[i] += int(c)
		}
	}
	for i, c := range total {
		if c != 1 {
			return fmt.Errorf("index %d ran %d times", i, c)
		}
	}
	if steals == 0 {
		return errors.New("no rank stole from another")
	}
	fmt.Printf("ParallelFor over %d indices on %d ranks: every index ran exactly once; ranks stole %d times\n",
		n, r.w.Size(), steals)
	return nil
}

// treePhase grows a tree of tasks from rank 0 under one group; each
// rank notes how many nodes it ran when its Wait returned, and rank 0
// checks that they add up to the whole tree.
func (r *rank) treePhase(ctx context.Context, depth int64) error {
	g, err := r.pool.NewGroup() // collective
	if err != nil {
		return err
	}
	if r.w.Rank() == 0 {
		if err := g.Spawn(r.node, task.Ints(depth)); err != nil {
			return err
		}
	}
	if err := g.Wait(ctx); err != nil {
		return err
	}
	r.seen.Store(r.nodes.Load())
	if err := r.barrier(ctx); err != nil { // every rank noted its count
		return err
	}
	if r.w.Rank() != 0 {
		return nil
	}
	var seen int64
	for src := range r.w.Size() {
		b, err := r.e.Call(ctx, src, r.counts, nil)
		if err != nil {
			return err
		}
		seen += int64(binary.LittleEndian.Uint64(b[8:]))
	}
	if want := int64(1)<<(depth+1) - 1; seen != want {
		return fmt.Errorf("the ranks' Waits returned after %d tree nodes of %d", seen, want)
	}
	fmt.Printf("a tree of %d tasks spawning tasks across %d ranks finished before every Wait returned\n", seen, r.w.Size())
	return nil
}

// losing makes rank lose die while its task of the group runs, as a
// crashed process; the others run a slow loop in the same group, and
// their Wait must fail with comm.ErrPeerLost rather than hang.
func (r *rank) losing(ctx context.Context, lose int) error {
	g, err := r.pool.NewGroup()
	if err != nil {
		return err
	}
	if r.w.Rank() == lose {
		err = g.SpawnOn(lose, r.die, nil)
	} else {
		err = g.ParallelFor(0, 100000, r.slow)
	}
	if err != nil {
		return err
	}
	err = g.Wait(ctx)
	if !errors.Is(err, comm.ErrPeerLost) {
		return fmt.Errorf("wait with rank %d lost: %v; want comm.ErrPeerLost", lose, err)
	}
	fmt.Printf("rank %d: Wait failed with comm.ErrPeerLost when rank %d died\n", r.w.Rank(), lose)
	r.pool.Close(ctx)
	return nil
}

func (r *rank) barrier(ctx context.Context) error {
	c, err := collective.New(ctx, r.w, collective.Config{})
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Barrier(ctx)
}

// close waits for every rank, so that nobody closes while others may
// still send to it, then closes the pool and the engine.
func (r *rank) close(ctx context.Context) error {
	if err := r.barrier(ctx); err != nil {
		return err
	}
	if err := r.pool.Close(ctx); err != nil {
		return err
	}
	return r.e.Close(ctx)
}
