package graph

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
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
// (target, parent) pairs, at most maxVisitPairs per task (an outbox). A
// task per frontier vertex and home cost more in task overhead (an item,
// its encoding, the pool's lock at both ends) than the claims it carried.
// Betweenness's levels send (target, value) entries the same way.
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

	bc bcTasks // betweenness's arrays and loops (bctasks.go)

	// next holds the local vertices reached in this search, level after
	// level: the search's goroutine hands out next[done:nNext] as the
	// next frontier after a level, and the winners of the following
	// level append after it. Each vertex is reached once, so next needs
	// a slot per local vertex.
	next  []uint32
	nNext atomic.Int64
	done  int64
}

// newTasks makes the heap and the pool in reg, before the engine: a
// block of the heap is Chunk 8-byte elements, so that element v of an
// array lives at rank v / Chunk, v's home. A rank's heap holds
// heapArrays blocks: the parent array and betweenness's three, which
// are allocated at its first use (memory that is never written costs
// no pages).
func newTasks(d *Dist, reg *am.Registry) (*tasks, error) {
	s := &tasks{d: d, seen: make([]atomic.Uint64, (d.hi-d.lo+63)/64), next: make([]uint32, d.hi-d.lo)}
	var err error
	bytes := 8 * d.chunk
	if s.heap, err = pgas.New(reg, pgas.Config{HeapBytes: heapArrays * bytes, Block: bytes}); err != nil {
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
	if err := s.registerBC(); err != nil {
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
	s.restart()
	return fill(ctx, s.d, s.parent, Unreached)
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

// restart empties the list of reached vertices for a new search.
func (s *tasks) restart() {
	s.nNext.Store(0)
	s.done = 0
}

// reached returns the local vertices reached since the last call: the
// next frontier once a level's group has finished.
func (s *tasks) reached() []uint32 {
	n := s.nNext.Load()
	f := s.next[s.done:n:n]
	s.done = n
	return f
}

// fill sets this rank's part of a (its own vertices' elements) to x,
// through a WriteOnly cache: pgas copies a local range without a
// message.
func fill[T pgas.Number](ctx context.Context, d *Dist, a pgas.Array[T], x T) error {
	if d.hi == d.lo {
		return nil
	}
	c, err := a.Acquire(ctx, int(d.lo), int(d.hi-d.lo), pgas.WriteOnly)
	if err != nil {
		return err
	}
	for i := range c.Data() {
		c.Data()[i] = x
	}
	return c.Release(ctx)
}

// overChunks runs one level: a task loop (ForLocal) of loop over
// items, the level's local vertices, in chunks of expandChunk; the
// bodies find them in s.frontier and the level in s.depth.
func (s *tasks) overChunks(ctx context.Context, items []uint32, depth int32, loop task.Loop) error {
	s.frontier, s.depth = items, depth
	chunks := (int64(len(items)) + expandChunk - 1) / expandChunk
	s.left.Store(chunks)
	return s.pool.ForLocal(ctx, 0, chunks, loop)
}

// chunk returns the items of chunk c of the running level.
func (s *tasks) chunk(c int64) []uint32 {
	return s.frontier[c*expandChunk : min(int64(len(s.frontier)), (c+1)*expandChunk)]
}

// chunkDone ends an iteration of overChunks. The rank's last one pushes
// am's buffers: its remaining visits of the level go now rather than
// after am's FlushAge, since every rank waits for them. Every one
// yields: a chunk is some microseconds of work, so am's goroutines send
// the full packets and take in other ranks' visits between chunks, and
// on a rank bound to one processor the ranks' levels overlap rather
// than take turns (task.T.Yield).
func (s *tasks) chunkDone(t *task.T) {
	if s.left.Add(-1) == 0 {
		s.d.e.Push()
	}
	t.Yield()
}

// outbox gathers one loop iteration's updates of other ranks' vertices
// per home, into tasks of f spawned at the home (in the iteration's
// group): each task's args are the level, 32 bits, then whole entries
// of size bytes, at most visitArgs bytes in all.
//
// Concurrency contract: an outbox belongs to the one iteration that
// made it.
type outbox struct {
	t     *task.T
	f     task.Func
	level int32
	size  int
	out   [][]byte
}

func newOutbox(t *task.T, f task.Func, level int32, size, ranks int) outbox {
	return outbox{t: t, f: f, level: level, size: size, out: make([][]byte, ranks)}
}

// args returns home h's args so far, started with the level.
func (o *outbox) args(h int) []byte {
	if o.out[h] == nil {
		o.out[h] = binary.LittleEndian.AppendUint32(make([]byte, 0, visitArgs), uint32(o.level))
	}
	return o.out[h]
}

// put keeps b as home h's args, or spawns them once another entry
// would not fit.
func (o *outbox) put(h int, b []byte) error {
	if len(b)+o.size <= visitArgs {
		o.out[h] = b
		return nil
	}
	o.out[h] = nil
	return o.t.SpawnOn(h, o.f, b)
}

// pair adds the entry (w, u) for home h.
func (o *outbox) pair(h int, w, u uint32) error {
	le := binary.LittleEndian
	return o.put(h, le.AppendUint32(le.AppendUint32(o.args(h), w), u))
}

// value adds the entry (w, x) for home h.
func (o *outbox) value(h int, w uint32, x float64) error {
	le := binary.LittleEndian
	return o.put(h, le.AppendUint64(le.AppendUint32(o.args(h), w), math.Float64bits(x)))
}

// flush spawns the partly filled args.
func (o *outbox) flush() error {
	for h, b := range o.out {
		if b != nil {
			o.out[h] = nil
			if err := o.t.SpawnOn(h, o.f, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// entries checks the args of a visit task of the given kind (another
// rank sent them) and returns its level, at least 1, and its entries of
// size bytes.
func entries(args []byte, size int, kind string) (int32, []byte, error) {
	if len(args) < 4 || (len(args)-4)%size != 0 {
		return 0, nil, fmt.Errorf("%w: %s of %d bytes, want a level and whole entries of %d bytes", ErrBadGraph, kind, len(args), size)
	}
	level := int32(binary.LittleEndian.Uint32(args))
	if level < 1 {
		return 0, nil, fmt.Errorf("%w: %s at level %d", ErrBadGraph, kind, level)
	}
	return level, args[4:], nil
}
