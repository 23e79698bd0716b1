package uts

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/task"
)

// Traverse counts the stored tree's nodes, leaves and depth with tasks
// that start at the root and follow child pointers: a node on another
// rank goes to that rank as a task, and idle ranks steal queued tasks.
// It is collective and returns the whole tree's counts on every rank.
func (m *Mem) Traverse(ctx context.Context) (Counts, error) {
	m.mu.Lock()
	m.counts = Counts{}
	m.mu.Unlock()
	m.visited.Store(0)
	// No rank may start visiting before every rank has cleared its
	// counts: a visit sent here early would be cleared with them.
	if err := m.c.Barrier(ctx); err != nil {
		return Counts{}, err
	}
	g, err := m.pool.NewGroup()
	if err != nil {
		return Counts{}, err
	}
	if m.rank == m.root.Rank() {
		if err := g.Spawn(m.visit, ptrArgs(m.root)); err != nil {
			return Counts{}, err
		}
	}
	if err := g.Wait(ctx); err != nil {
		return Counts{}, fmt.Errorf("uts: traverse: %w", err)
	}
	return m.total(ctx)
}

func ptrArgs(p Ptr) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(p)) }

// total sums the ranks' counts.
func (m *Mem) total(ctx context.Context) (Counts, error) {
	m.mu.Lock()
	c := m.counts
	m.mu.Unlock()
	sums := []int64{c.Nodes, c.Leaves}
	depth := []int64{int64(c.Depth)}
	if err := collective.AllreduceValues(ctx, m.c, sums, sums, func(a, b int64) int64 { return a + b }); err != nil {
		return Counts{}, err
	}
	if err := collective.AllreduceValues(ctx, m.c, depth, depth, func(a, b int64) int64 { return max(a, b) }); err != nil {
		return Counts{}, err
	}
	return Counts{Nodes: sums[0], Leaves: sums[1], Depth: int(depth[0])}, nil
}

// visitTask visits nodes depth first from its pointer by following the
// stored child pointers; after each Budget nodes it hands the oldest
// pointer on its stack to a new task of this rank's (a visit must run
// where its nodes are: a thief on another rank would only send it back),
// which an idle worker here may take, yields so that the visits it sent
// to other ranks leave (task.T.Yield), and goes on with the rest.
func (m *Mem) visitTask(ctx context.Context, t *task.T, args []byte) error {
	if len(args) != 8 {
		return fmt.Errorf("%w: visit task of %d bytes, want 8", ErrBadTree, len(args))
	}
	stack := []Ptr{Ptr(binary.LittleEndian.Uint64(args))}
	var c Counts
	defer m.add(&c)
	stored := m.store.len()
	for done := 0; len(stack) > 0; done++ {
		if done >= m.cfg.Budget {
			if len(stack) > 1 {
				if err := t.SpawnOn(m.rank, m.visit, ptrArgs(stack[0])); err != nil {
					return err
				}
				stack = stack[1:]
			}
			done = 0
			t.Yield()
		}
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p.Rank() != m.rank {
			if err := t.SpawnOn(p.Rank(), m.visit, ptrArgs(p)); err != nil {
				return err
			}
			continue
		}
		if p.index() >= stored {
			return fmt.Errorf("%w: pointer to node %d of %d on rank %d", ErrBadTree, p.index(), stored, m.rank)
		}
		r := m.store.rec(p.index())
		c.visit(Node{Height: r.height}, int(r.n))
		var err error
		if stack, err = m.push(t, stack, r); err != nil {
			return err
		}
	}
	return nil
}

// push puts r's local children on the stack and sends each remote one
// to its home at once: the subtrees that other ranks built during the
// build's steals hang near the root, and sent only when popped they
// would wait until this rank's stack is nearly empty.
func (m *Mem) push(t *task.T, stack []Ptr, r *record) ([]Ptr, error) {
	for i := range int64(r.n) {
		k := *m.store.kid(r.first + i)
		if k.Rank() == m.rank {
			stack = append(stack, k)
		} else if err := t.SpawnOn(k.Rank(), m.visit, ptrArgs(k)); err != nil {
			return nil, err
		}
	}
	return stack, nil
}

func (m *Mem) add(c *Counts) {
	m.mu.Lock()
	m.counts.Add(*c)
	m.mu.Unlock()
	m.visited.Add(c.Nodes)
}
