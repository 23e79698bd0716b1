package graph

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/plexus-hpc/plexus/task"
)

// The Tasks implementation's levels. A level is one task group: every
// rank loops over its own part (task.ForLocal, never stolen, since an
// iteration needs its vertices' adjacency lists), and what reaches
// another rank's vertices goes there as visit tasks of the same group,
// so the group's completion (Mattern's waves, package task) says that
// every visit of the level, anywhere, has been applied. The next
// frontier is then the local vertices that the winning claims appended.

// start claims the root at its home and returns the first frontier.
func (s *tasks) start(ctx context.Context, root int64) ([]uint32, error) {
	if err := s.reset(ctx); err != nil {
		return nil, err
	}
	if s.d.Home(root) != s.d.rank {
		return nil, nil
	}
	if err := s.claim(ctx, root-s.d.lo, root, 0); err != nil {
		return nil, err
	}
	return s.reached(), nil
}

// topDown expands every local frontier vertex in a task loop over
// chunks of the frontier.
func (s *tasks) topDown(ctx context.Context, frontier []uint32, depth int32) ([]uint32, error) {
	if err := s.overChunks(ctx, frontier, depth, s.expand); err != nil {
		return nil, fmt.Errorf("graph: top-down level %d: %w", depth+1, err)
	}
	return s.reached(), nil
}

// bottomUp shares the frontier as a bitmap, then every local vertex
// looks for a parent in it, in a task loop.
func (s *tasks) bottomUp(ctx context.Context, frontier []uint32, depth int32) ([]uint32, error) {
	bits, err := s.d.shareBitmap(ctx, frontier)
	if err != nil {
		return nil, err
	}
	s.bits, s.depth = bits, depth
	if err := s.pool.ForLocal(ctx, 0, s.d.hi-s.d.lo, s.adopt); err != nil {
		return nil, fmt.Errorf("graph: bottom-up level %d: %w", depth+1, err)
	}
	return s.reached(), nil
}

// expandBody visits the neighbours of the frontier vertices of chunk c:
// local ones by a claim here, the others by visit tasks to their homes.
func (s *tasks) expandBody(ctx context.Context, t *task.T, c int64) error {
	d := s.d
	level := s.depth + 1
	out := newOutbox(t, s.visit, level, 8, d.ranks)
	for _, li := range s.chunk(c) {
		u := int64(li) + d.lo
		for _, w := range d.g.Nbr[d.g.Off[li]:d.g.Off[li+1]] {
			if v := int64(w); v >= d.lo && v < d.hi {
				if err := s.claim(ctx, v-d.lo, u, level); err != nil {
					return err
				}
				continue
			}
			if err := out.pair(d.Home(int64(w)), w, uint32(u)); err != nil {
				return err
			}
		}
	}
	if err := out.flush(); err != nil {
		return err
	}
	s.chunkDone(t)
	return nil
}

// visitTask runs at the targets' home: it claims each target for its
// parent. Its args come from another rank, so they are checked.
func (s *tasks) visitTask(ctx context.Context, _ *task.T, args []byte) error {
	d := s.d
	level, b, err := entries(args, 8, "visit")
	if err != nil {
		return err
	}
	for ; len(b) > 0; b = b[8:] {
		v, u := int64(binary.LittleEndian.Uint32(b)), int64(binary.LittleEndian.Uint32(b[4:]))
		if v < d.lo || v >= d.hi || u >= d.n {
			return fmt.Errorf("%w: visit of vertex %d from parent %d sent to the home of [%d, %d) of %d vertices",
				ErrBadGraph, v, u, d.lo, d.hi, d.n)
		}
		if err := s.claim(ctx, v-d.lo, u, level); err != nil {
			return err
		}
	}
	return nil
}

// adoptBody gives unreached local vertex li its first neighbour in the
// frontier as its parent. Only this iteration claims li in the level.
func (s *tasks) adoptBody(ctx context.Context, _ *task.T, li int64) error {
	if s.seen[li>>6].Load()&(1<<(li&63)) != 0 {
		return nil
	}
	d := s.d
	for _, w := range d.g.Nbr[d.g.Off[li]:d.g.Off[li+1]] {
		if s.bits[w>>6]&(1<<(w&63)) != 0 {
			return s.claim(ctx, li, int64(w), s.depth+1)
		}
	}
	return nil
}
