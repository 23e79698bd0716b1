package graph

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/pgas"
	"github.com/plexus-hpc/plexus/task"
)

// heapArrays is the blocks of a rank's heap in the Tasks
// implementation: the parent array and betweenness's level, sigma and
// delta arrays, each one block of Chunk elements per rank.
const heapArrays = 4

// bcTasks is betweenness centrality in the Tasks implementation: the
// vertex data of Brandes' algorithm in pgas global arrays homed with
// their vertices, and the task loops and visit tasks of its two phases
// (bctaskslevels.go).
//
// Concurrency contract: Centrality's goroutine resets the arrays and
// reads delta between task groups; inside a group the tasks change the
// arrays only by delegates at the home (CompareAndSwap of a level,
// FetchAndAdd of a sigma or a delta), and read only elements that no
// task of the group changes: a forward level reads the sigma of its
// frontier and changes those of the next level; a backward level reads
// the delta of its own level and changes those of the level above. The
// claim that wins a vertex stores its level in known (atomic) after the
// CompareAndSwap; other tasks only load it.
type bcTasks struct {
	// level is each vertex's distance from the source, -1 unreached;
	// sigma its shortest paths from the source; delta its dependency.
	// Allocated at the first Centrality, on every rank at once.
	level pgas.Array[int64]
	sigma pgas.Array[float64]
	delta pgas.Array[float64]
	ready bool

	paths     task.Loop // forward: a chunk of frontier
	deps      task.Loop // backward: a chunk of a level
	pathVisit task.Func // at a home: add path counts
	depVisit  task.Func // at a home: add dependencies

	levels [][]uint32 // the local vertices of each level of the source

	// known mirrors this rank's part of level, plus one: 0 until the
	// claim that set the level has stored it here. It only lets the home
	// skip a delegate, as the search's seen bits do: a vertex whose
	// level is known here needs no Read of it. Between the phases every
	// reached vertex's level is known, and stays so for the sweep.
	known []atomic.Int32
}

// registerBC registers betweenness's loops and visits in the pool,
// before the engine.
func (s *tasks) registerBC() error {
	var err error
	if s.bc.paths, err = s.pool.RegisterLoop("graph.bc.paths", s.pathsBody); err != nil {
		return err
	}
	if s.bc.deps, err = s.pool.RegisterLoop("graph.bc.deps", s.depsBody); err != nil {
		return err
	}
	if s.bc.pathVisit, err = s.pool.Register("graph.bc.pathvisit", s.pathVisitTask); err != nil {
		return err
	}
	s.bc.depVisit, err = s.pool.Register("graph.bc.depvisit", s.depVisitTask)
	return err
}

// allocBC allocates the three arrays once. It is collective.
func (s *tasks) allocBC(ctx context.Context) error {
	if s.bc.ready {
		return nil
	}
	n := int(s.d.n)
	var err error
	if s.bc.level, err = pgas.Alloc[int64](ctx, s.heap, n); err != nil {
		return fmt.Errorf("graph: level array: %w", err)
	}
	if s.bc.sigma, err = pgas.Alloc[float64](ctx, s.heap, n); err != nil {
		return fmt.Errorf("graph: sigma array: %w", err)
	}
	if s.bc.delta, err = pgas.Alloc[float64](ctx, s.heap, n); err != nil {
		return fmt.Errorf("graph: delta array: %w", err)
	}
	s.bc.known = make([]atomic.Int32, s.d.hi-s.d.lo)
	s.bc.ready = true
	return nil
}

// centrality is Dist.Centrality in the Tasks implementation.
func (s *tasks) centrality(ctx context.Context, sources []int64) ([]float64, error) {
	for _, src := range sources {
		if src < 0 || src >= s.d.n {
			return nil, fmt.Errorf("%w: source %d of %d vertices", ErrBadGraph, src, s.d.n)
		}
	}
	if err := s.allocBC(ctx); err != nil {
		return nil, err
	}
	bc := make([]float64, s.d.hi-s.d.lo)
	for _, src := range sources {
		if err := s.brandes(ctx, src); err != nil {
			return nil, fmt.Errorf("graph: source %d: %w", src, err)
		}
		if err := s.addDeltas(ctx, bc, src); err != nil {
			return nil, err
		}
	}
	return bc, nil
}

// brandes runs both phases from src: top-down levels that count paths
// until a level reaches no vertex on any rank, then the levels again
// from the deepest up, each sending its vertices' dependencies to the
// level above.
func (s *tasks) brandes(ctx context.Context, src int64) error {
	frontier, err := s.startBC(ctx, src)
	if err != nil {
		return err
	}
	s.bc.levels = s.bc.levels[:0]
	for depth := int32(0); ; depth++ {
		// The sum also orders the phases: no rank sends a level's
		// visits before every rank has reset its arrays and finished
		// the level before.
		sums := []int64{int64(len(frontier))}
		if err := collectiveSum(ctx, s.d, sums); err != nil {
			return err
		}
		if sums[0] == 0 {
			break
		}
		s.bc.levels = append(s.bc.levels, frontier)
		if err := s.overChunks(ctx, frontier, depth, s.bc.paths); err != nil {
			return fmt.Errorf("graph: paths to level %d: %w", depth+1, err)
		}
		frontier = s.reached()
	}
	// Every rank has the same number of levels, some of them empty here.
	for depth := len(s.bc.levels) - 1; depth > 0; depth-- {
		if err := s.overChunks(ctx, s.bc.levels[depth], int32(depth), s.bc.deps); err != nil {
			return fmt.Errorf("graph: dependencies of level %d: %w", depth, err)
		}
	}
	return nil
}

// startBC resets this rank's part of the arrays and places the source
// at level 0 with one path at its home, whose first frontier it is.
func (s *tasks) startBC(ctx context.Context, src int64) ([]uint32, error) {
	d := s.d
	s.restart()
	for i := range s.bc.known {
		s.bc.known[i].Store(0)
	}
	if err := fill(ctx, d, s.bc.level, -1); err != nil {
		return nil, err
	}
	if err := fill(ctx, d, s.bc.sigma, 0); err != nil {
		return nil, err
	}
	if err := fill(ctx, d, s.bc.delta, 0); err != nil {
		return nil, err
	}
	if d.Home(src) != d.rank {
		return nil, nil
	}
	if err := s.bc.level.At(int(src)).Write(ctx, 0); err != nil {
		return nil, err
	}
	if err := s.bc.sigma.At(int(src)).Write(ctx, 1); err != nil {
		return nil, err
	}
	s.bc.known[src-d.lo].Store(1)
	s.next[s.nNext.Add(1)-1] = uint32(src - d.lo)
	return s.reached(), nil
}

// addDeltas adds every local vertex's dependency on src, but src's own,
// to bc.
func (s *tasks) addDeltas(ctx context.Context, bc []float64, src int64) error {
	d := s.d
	if d.hi == d.lo {
		return nil
	}
	c, err := s.bc.delta.Acquire(ctx, int(d.lo), int(d.hi-d.lo), pgas.ReadOnly)
	if err != nil {
		return err
	}
	for li, x := range c.Data() {
		if int64(li)+d.lo != src {
			bc[li] += x
		}
	}
	return c.Release(ctx)
}
