package uts

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/task"
)

// ErrFull is returned when a rank's store cannot hold more nodes.
var ErrFull = errors.New("uts: node store full")

// DefaultBudget is the nodes a task handles before it spawns the rest
// of its stack as tasks that idle workers and other ranks may take.
const DefaultBudget = 1024

// MemConfig tunes a Mem. Every rank uses the same one.
type MemConfig struct {
	// Budget is the nodes one task builds or visits before it spawns
	// what is left on its stack; 0 means DefaultBudget.
	Budget int
	// Task configures the rank's task pool. Workers 0 means one per
	// processor: UTS's tasks never block, so more workers add no
	// overlap, and they would take every spilled task on the rank that
	// made it before an idle rank's steal could find one.
	Task task.Config
	// AM configures the rank's engine.
	AM am.Config
}

// Mem is UTS-Mem on one rank, as in Grappa: the tree is first built in
// memory across the ranks, each node stored on the rank whose worker
// generated it with its children as global pointers, then traversed by
// tasks that know nothing of its shape.
//
// Concurrency contract: Build and Traverse are collective and called by
// one goroutine per rank, one after the other; the tasks run inside.
type Mem struct {
	p           Params
	cfg         MemConfig
	c           *collective.Comm
	pool        *task.Pool
	e           *am.Engine
	rank, ranks int

	build, visit    task.Func
	idLink, idFence am.ID
	store           store
	root            Ptr
	haveRoot        bool

	mu      sync.Mutex // guards counts, full and the root
	counts  Counts     // this rank's part of the traversal
	full    bool
	visited atomic.Int64
	heard   []atomic.Int64 // each rank's stored nodes as last heard, plus what was sent there since (deal.go)
}

// NewMem makes this rank's UTS-Mem for p's tree over w, with its own
// task pool and am engine; c is the job's collective communicator.
func NewMem(ctx context.Context, w *comm.World, c *collective.Comm, p Params, cfg MemConfig) (*Mem, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if cfg.Budget == 0 {
		cfg.Budget = DefaultBudget
	}
	if cfg.Task.Workers == 0 {
		cfg.Task.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Budget < 1 {
		return nil, fmt.Errorf("%w: task budget %d", ErrBadTree, cfg.Budget)
	}
	m := &Mem{p: p, cfg: cfg, c: c, rank: w.Rank(), ranks: w.Size(), heard: make([]atomic.Int64, w.Size())}
	var reg am.Registry
	var err error
	if m.pool, err = task.New(&reg, cfg.Task); err != nil {
		return nil, err
	}
	if err := m.register(&reg); err != nil {
		return nil, err
	}
	if m.e, err = am.New(ctx, w, &reg, cfg.AM); err != nil {
		return nil, err
	}
	if err := m.pool.Bind(m.e); err != nil {
		m.e.Close(ctx)
		return nil, err
	}
	return m, nil
}

func (m *Mem) register(reg *am.Registry) error {
	var err error
	if m.build, err = m.pool.Register("uts.build", m.buildTask); err != nil {
		return err
	}
	if m.visit, err = m.pool.Register("uts.visit", m.visitTask); err != nil {
		return err
	}
	if m.idLink, err = reg.Register("uts.link", m.link); err != nil {
		return err
	}
	m.idFence, err = reg.Register("uts.fence", func(context.Context, int, []byte) ([]byte, error) { return nil, nil })
	return err
}

// Close stops the rank's pool and engine once every rank is done.
func (m *Mem) Close(ctx context.Context) error {
	err := m.c.Barrier(ctx)
	err = errors.Join(err, m.pool.Close(ctx))
	return errors.Join(err, m.e.Close(ctx))
}

// Stored returns the nodes stored on this rank.
func (m *Mem) Stored() int64 { return m.store.len() }

// Visited returns the nodes this rank's workers visited in the last
// traversal.
func (m *Mem) Visited() int64 { return m.visited.Load() }

// quiet returns once every rank's Posts made before it have run.
func (m *Mem) quiet(ctx context.Context) error {
	for r := range m.ranks {
		if _, err := m.e.Call(ctx, r, m.idFence, nil); err != nil {
			return fmt.Errorf("uts: quiet at rank %d: %w", r, err)
		}
	}
	return m.c.Barrier(ctx)
}

// link is the home side of a child pointer written from another rank:
// args are the slot's index and the child's pointer.
func (m *Mem) link(_ context.Context, _ int, args []byte) ([]byte, error) {
	if len(args) != 16 {
		return nil, fmt.Errorf("%w: link of %d bytes, want 16", ErrBadTree, len(args))
	}
	slot := int64(binary.LittleEndian.Uint64(args))
	if slot < 0 || slot >= m.kidsLen() {
		return nil, fmt.Errorf("%w: link to slot %d of %d", ErrBadTree, slot, m.kidsLen())
	}
	*m.store.kid(slot) = Ptr(binary.LittleEndian.Uint64(args[8:]))
	return nil, nil
}

func (m *Mem) kidsLen() int64 {
	m.store.mu.Lock()
	defer m.store.mu.Unlock()
	return m.store.nkid
}

// setSlot points the parent's slot at child: in place when the slot is
// here, else by a Post to the slot's rank.
func (m *Mem) setSlot(ctx context.Context, slot, child Ptr) error {
	switch {
	case slot == noPtr:
		m.mu.Lock()
		m.root, m.haveRoot = child, true
		m.mu.Unlock()
		return nil
	case slot.Rank() == m.rank:
		*m.store.kid(slot.index()) = child
		return nil
	}
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], uint64(slot.index()))
	binary.LittleEndian.PutUint64(b[8:], uint64(child))
	return m.e.Post(ctx, slot.Rank(), m.idLink, b[:])
}
