package graph

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/pgas"
	"github.com/plexus-hpc/plexus/task"
)

// Impl chooses how a search runs on the ranks.
type Impl int

const (
	// Loops runs a level as goroutines over the rank's own vertices,
	// keeps parents in plain per-rank arrays, and sends visits to their
	// homes in batches that the application packs; the home's own
	// goroutine applies them.
	Loops Impl = 1 + iota
	// Tasks is Grappa's style: a level is a task.ForLocal loop over the
	// rank's own frontier (or, bottom-up, its own vertices), the parent
	// array is a pgas global array whose element v lives at v's home,
	// and a visit is a compare-and-swap on it at the home, carried by a
	// task spawned there (one per frontier vertex and home, aggregated
	// further by am). A level ends at its task group's global
	// completion.
	Tasks
)

// String returns the name the CLI uses.
func (i Impl) String() string {
	switch i {
	case Loops:
		return "loops"
	case Tasks:
		return "tasks"
	}
	return fmt.Sprintf("Impl(%d)", int(i))
}

// Visits: an iteration of a top-down level expands expandChunk frontier
// vertices and sends what reaches each other home as visit tasks of
// (target, parent) pairs, at most maxVisitPairs per task. A task per
// frontier vertex and home cost more in task overhead (an item, its
// encoding, the pool's lock at both ends) than the claims it carried.
const (
	expandChunk   = 64
	visitArgs     = 4 << 10 // task.Config.MaxArgs of the search's pool
	maxVisitPairs = (visitArgs - 4) / 8
)

// tasks is the Tasks implementation's runtime at one rank: the pgas
// heap that holds this rank's part of the parent array, the task pool
// that runs the levels' loops and the visits, and the loop bodies'
// inputs.
//
// Concurrency contract: the search's goroutine writes frontier, bits and
// depth before it starts a level's group and reads next after the
// group's Wait; the group's tasks read the inputs and claim vertices
// concurrently. A vertex's parent is decided by the CAS at its home, so
// exactly one claim of it wins, and only the winner writes its level
// and appends it to next, at a slot it takes from nNext. seen only
// filters claims that would fail: a set bit means the vertex is reached;
// a clear one decides nothing.
type tasks struct {
	d      *Dist
	heap   *pgas.Heap
	pool   *task.Pool
	parent pgas.Array[int64]
	expand task.Loop // top-down: a chunk of frontier
	adopt  task.Loop // bottom-up: local vertex
	visit  task.Func // at a home: claim the targets for their parents
	seen   []atomic.Uint64

	frontier []uint32 // the level's local frontier (top-down)
	bits     []uint64 // the level's whole frontier as a bitmap (bottom-up)
	depth    int32
	left     atomic.Int64 // frontier chunks not yet expanded

	// next holds the local vertices reached in this search, level after
	// level: the search's goroutine hands out next[done:nNext] as the
	// next frontier after a level, and the winners of the following
	// level append after it. Each vertex is reached once, so next needs
	// a slot per local vertex.
	next  []uint32
	nNext atomic.Int64
	done  int64
}

// newTasks makes the heap and the pool in reg, before the engine: every
// rank's heap is one block of Chunk parents, so that element v of the
// array lives at rank v / Chunk, v's home.
func newTasks(d *Dist, reg *am.Registry) (*tasks, error) {
	s := &tasks{d: d, seen: make([]atomic.Uint64, (d.hi-d.lo+63)/64), next: make([]uint32, d.hi-d.lo)}
	var err error
	bytes := 8 * d.chunk
	if s.heap, err = pgas.New(reg, pgas.Config{HeapBytes: bytes, Block: bytes}); err != nil {
		return nil, err
	}
	// Every task here is bound to its rank's data, so stealing finds
	// nothing; the visits never block, so a worker per thread suffices.
	if s.pool, err = task.New(reg, task.Config{Workers: d.cfg.Threads, NoSteal: true, MaxArgs: visitArgs}); err != nil {
		return nil, err
	}
	if s.expand, err = s.pool.RegisterLoop("graph.expand", s.expandBody); err != nil {
		return nil, err
	}
	if s.adopt, err = s.pool.RegisterLoop("graph.adopt", s.adoptBody); err != nil {
		return nil, err
	}
	if s.visit, err = s.pool.Register("graph.visit", s.visitTask); err != nil {
		return nil, err
	}
	return s, nil
}

// bind starts the pool and the heap on e and allocates the parent
// array, checking that its elements are homed with their vertices.
func (s *tasks) bind(ctx context.Context, e *am.Engine) error {
	if err := s.pool.Bind(e); err != nil {
		return err
	}
	if err := s.heap.Bind(e); err != nil {
		return err
	}
	var err error
	if s.parent, err = pgas.Alloc[int64](ctx, s.heap, int(s.d.n)); err != nil {
		return fmt.Errorf("graph: parent array: %w", err)
	}
	for _, v := range []int64{s.d.lo, s.d.hi - 1} {
		if v >= s.d.lo && v < s.d.hi {
			if r := s.parent.At(int(v)).Addr().Rank; r != s.d.rank {
				return fmt.Errorf("%w: parent of vertex %d homed on rank %d, the vertex on %d", ErrBadGraph, v, r, s.d.rank)
			}
		}
	}
	return nil
}

// reset marks every local vertex unreached, in the parent array too.
func (s *tasks) reset(ctx context.Context) error {
	for i := range s.seen {
		s.seen[i].Store(0)
	}
	s.nNext.Store(0)
	s.done = 0
	if s.d.hi == s.d.lo {
		return nil
	}
	c, err := s.parent.Acquire(ctx, int(s.d.lo), int(s.d.hi-s.d.lo), pgas.WriteOnly)
	if err != nil {
		return err
	}
	for i := range c.Data() {
		c.Data()[i] = Unreached
	}
	return c.Release(ctx)
}

// parents copies this rank's part of the parent array into Dist.parent
// for validation.
func (s *tasks) parents(ctx context.Context) error {
	if s.d.hi == s.d.lo {
		return nil
	}
	c, err := s.parent.Acquire(ctx, int(s.d.lo), int(s.d.hi-s.d.lo), pgas.ReadOnly)
	if err != nil {
		return err
	}
	copy(s.d.parent, c.Data())
	return c.Release(ctx)
}

// claim makes parent the parent of local vertex li, at the given level,
// unless it has one: a CAS on the parent array at this home.
func (s *tasks) claim(ctx context.Context, li, parent int64, level int32) error {
	w, bit := li>>6, uint64(1)<<(li&63)
	if s.seen[w].Load()&bit != 0 {
		return nil
	}
	ok, err := s.parent.At(int(s.d.lo+li)).CompareAndSwap(ctx, Unreached, parent)
	if err != nil || !ok {
		return err
	}
	s.seen[w].Or(bit)
	s.d.level[li] = level
	s.next[s.nNext.Add(1)-1] = uint32(li)
	return nil
}

// reached returns the local vertices reached since the last call: the
// next frontier once a level's group has finished.
func (s *tasks) reached() []uint32 {
	n := s.nNext.Load()
	f := s.next[s.done:n:n]
	s.done = n
	return f
}
