package graph

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/plexus-hpc/plexus/task"
)

// Betweenness's levels in the Tasks implementation, in the shape of the
// search's top-down levels (bfstasks.go): each is a task loop over
// chunks of one level's local vertices, whose updates of other ranks'
// vertices go to their homes as visit tasks of (vertex, value) entries
// (an outbox), and which ends at its group's global completion.
//
// Forward, a frontier vertex u at level d offers its path count
// sigma(u) to every neighbour w: at w's home, a w still unreached is
// claimed for level d+1 (CompareAndSwap of its level from -1: one claim
// wins and appends w to the next frontier), and a w at level d+1 adds
// sigma(u) to sigma(w). The winner also notes the level in the home's
// mirror (bcTasks.known), so that later offers to w, in this phase and
// the next, skip the delegate that reads its level. Path counts are whole numbers below 2^53 in the
// graphs the tests and benchmarks use, so the order of the adds does not
// change them.
//
// Backward, from the deepest level up, a vertex w at level d offers
// (1 + delta(w)) / sigma(w) to every neighbour v, and at v's home a v at
// level d-1 adds sigma(v) times it to delta(v) (FetchAndAdd). These sums
// are of fractions in an order that depends on the ranks' timing, so the
// scores agree with the sequential ones to rounding, not bit for bit.

// valueSize is the bytes of a (vertex, value) entry.
const valueSize = 12

// pathsBody offers the path counts of the frontier vertices of chunk c
// to their neighbours.
func (s *tasks) pathsBody(ctx context.Context, t *task.T, c int64) error {
	d := s.d
	level := s.depth + 1
	out := newOutbox(t, s.bc.pathVisit, level, valueSize, d.ranks)
	for _, li := range s.chunk(c) {
		x, err := s.bc.sigma.At(int(d.lo + int64(li))).Read(ctx)
		if err != nil {
			return err
		}
		for _, w := range d.g.Nbr[d.g.Off[li]:d.g.Off[li+1]] {
			if v := int64(w); v >= d.lo && v < d.hi {
				err = s.count(ctx, v-d.lo, x, level)
			} else {
				err = out.value(d.Home(v), w, x)
			}
			if err != nil {
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

// count adds x paths to local vertex li if it is at level, claiming it
// for the level if it is unreached. In a forward level only claims
// write levels, each from -1 to the level, so a claim that loses finds
// the vertex at the level.
func (s *tasks) count(ctx context.Context, li int64, x float64, level int32) error {
	v := int(s.d.lo + li)
	l := int64(s.bc.known[li].Load()) - 1
	if l < 0 {
		var err error
		if l, err = s.claimLevel(ctx, li, level); err != nil {
			return err
		}
	}
	if l != int64(level) {
		return nil
	}
	_, err := s.bc.sigma.At(v).FetchAndAdd(ctx, x)
	return err
}

// claimLevel returns local vertex li's level, claiming it for level if
// it is unreached; the winner appends it to the next frontier.
func (s *tasks) claimLevel(ctx context.Context, li int64, level int32) (int64, error) {
	p := s.bc.level.At(int(s.d.lo + li))
	l, err := p.Read(ctx)
	if err != nil || l >= 0 {
		return l, err
	}
	won, err := p.CompareAndSwap(ctx, -1, int64(level))
	if err != nil {
		return 0, err
	}
	if won {
		s.bc.known[li].Store(level + 1)
		s.next[s.nNext.Add(1)-1] = uint32(li)
	}
	return int64(level), nil
}

// pathVisitTask runs at the targets' home: it counts each entry's paths.
// Its args come from another rank, so they are checked.
func (s *tasks) pathVisitTask(ctx context.Context, _ *task.T, args []byte) error {
	return s.eachValue(args, "path visit", func(li int64, x float64, level int32) error {
		return s.count(ctx, li, x, level)
	})
}

// depsBody offers each vertex of chunk c of its level its dependency
// share, (1 + delta) / sigma, to its neighbours; local ones take it
// here.
func (s *tasks) depsBody(ctx context.Context, t *task.T, c int64) error {
	d := s.d
	out := newOutbox(t, s.bc.depVisit, s.depth, valueSize, d.ranks)
	for _, li := range s.chunk(c) {
		f, err := s.share(ctx, int(d.lo+int64(li)))
		if err != nil {
			return err
		}
		for _, w := range d.g.Nbr[d.g.Off[li]:d.g.Off[li+1]] {
			if v := int64(w); v >= d.lo && v < d.hi {
				err = s.depend(ctx, v-d.lo, f, s.depth)
			} else {
				err = out.value(d.Home(v), w, f)
			}
			if err != nil {
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

// share returns (1 + delta(v)) / sigma(v) for local vertex v.
func (s *tasks) share(ctx context.Context, v int) (float64, error) {
	delta, err := s.bc.delta.At(v).Read(ctx)
	if err != nil {
		return 0, err
	}
	sigma, err := s.bc.sigma.At(v).Read(ctx)
	return (1 + delta) / sigma, err
}

// depend adds sigma(li) × f to the dependency of local vertex li if it
// lies one level above level, the level of the vertex that sent f.
func (s *tasks) depend(ctx context.Context, li int64, f float64, level int32) error {
	if s.bc.known[li].Load() != level { // level-1, plus one
		return nil
	}
	v := int(s.d.lo + li)
	sigma, err := s.bc.sigma.At(v).Read(ctx)
	if err != nil {
		return err
	}
	_, err = s.bc.delta.At(v).FetchAndAdd(ctx, sigma*f)
	return err
}

// depVisitTask runs at the targets' home: it adds each entry's share to
// its dependency. Its args come from another rank, so they are checked.
func (s *tasks) depVisitTask(ctx context.Context, _ *task.T, args []byte) error {
	return s.eachValue(args, "dependency visit", func(li int64, x float64, level int32) error {
		return s.depend(ctx, li, x, level)
	})
}

// eachValue checks a visit's args and calls f with the local index, the
// value and the level of each entry.
func (s *tasks) eachValue(args []byte, kind string, f func(li int64, x float64, level int32) error) error {
	d := s.d
	level, b, err := entries(args, valueSize, kind)
	if err != nil {
		return err
	}
	for ; len(b) > 0; b = b[valueSize:] {
		v := int64(binary.LittleEndian.Uint32(b))
		if v < d.lo || v >= d.hi {
			return fmt.Errorf("%w: %s of vertex %d sent to the home of [%d, %d) of %d vertices",
				ErrBadGraph, kind, v, d.lo, d.hi, d.n)
		}
		if err := f(v-d.lo, math.Float64frombits(binary.LittleEndian.Uint64(b[4:])), level); err != nil {
			return err
		}
	}
	return nil
}
