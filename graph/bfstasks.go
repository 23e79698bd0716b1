package graph

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/plexus-hpc/plexus/task"
)

// The Tasks implementation's levels. A level is one task group: every
// rank loops over its own part (task.ForLocal, never stolen, since an
// iteration needs its vertex's adjacency list), and what reaches another
// rank's vertices goes there as visit tasks of the same group, so the
// group's completion (Mattern's waves, package task) says that every
// visit of the level, anywhere, has been applied. The next frontier is
// then read off the levels that the winning claims wrote.

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
	return []uint32{uint32(root - s.d.lo)}, nil
}

// topDown expands every local frontier vertex in a task loop.
func (s *tasks) topDown(ctx context.Context, frontier []uint32, depth int32) ([]uint32, error) {
	s.frontier, s.depth = frontier, depth
	s.left.Store(int64(len(frontier)))
	if err := s.pool.ForLocal(ctx, 0, int64(len(frontier)), s.expand); err != nil {
		return nil, fmt.Errorf("graph: top-down level %d: %w", depth+1, err)
	}
	return s.reached(depth + 1), nil
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
	return s.reached(depth + 1), nil
}

// expandBody visits the neighbours of frontier vertex i: local ones by
// a claim here, the others by one visit task per home, which carries
// the level, the parent and up to maxVisitTargets targets.
func (s *tasks) expandBody(ctx context.Context, t *task.T, i int64) error {
	d := s.d
	li := int64(s.frontier[i])
	u, level := li+d.lo, s.depth+1
	var out [][]byte
	for _, w := range d.g.Nbr[d.g.Off[li]:d.g.Off[li+1]] {
		if v := int64(w); v >= d.lo && v < d.hi {
			if err := s.claim(ctx, v-d.lo, u, level); err != nil {
				return err
			}
			continue
		}
		if out == nil {
			out = make([][]byte, d.ranks)
		}
		h := d.Home(int64(w))
		if out[h] == nil {
			out[h] = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(make([]byte, 0, 64), uint32(level)), uint32(u))
		}
		out[h] = binary.LittleEndian.AppendUint32(out[h], w)
		if len(out[h]) == 4*(maxVisitTargets+2) {
			if err := t.SpawnOn(h, s.visit, out[h]); err != nil {
				return err
			}
			out[h] = nil
		}
	}
	for h, b := range out {
		if b != nil {
			if err := t.SpawnOn(h, s.visit, b); err != nil {
				return err
			}
		}
	}
	if s.left.Add(-1) == 0 {
		// The rank's last visits of the level: send them now rather
		// than after am's FlushAge, since every rank waits for them.
		d.e.Push()
	}
	return nil
}

// visitTask runs at the targets' home: it claims each target for the
// parent. Its args come from another rank, so they are checked.
func (s *tasks) visitTask(ctx context.Context, _ *task.T, args []byte) error {
	d := s.d
	if len(args) < 8 || len(args)%4 != 0 {
		return fmt.Errorf("%w: visit of %d bytes, want a level, a parent and whole targets", ErrBadGraph, len(args))
	}
	level, u := int32(binary.LittleEndian.Uint32(args)), int64(binary.LittleEndian.Uint32(args[4:]))
	if level < 1 || u >= d.n {
		return fmt.Errorf("%w: visit at level %d from parent %d of %d vertices", ErrBadGraph, level, u, d.n)
	}
	for b := args[8:]; len(b) > 0; b = b[4:] {
		v := int64(binary.LittleEndian.Uint32(b))
		if v < d.lo || v >= d.hi {
			return fmt.Errorf("%w: visit of vertex %d sent to the home of [%d, %d)", ErrBadGraph, v, d.lo, d.hi)
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
