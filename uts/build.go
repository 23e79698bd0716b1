package uts

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/task"
)

// pending is a node yet to build: its state, height and the slot of its
// parent that will point at it.
type pending struct {
	node Node
	slot Ptr
}

const pendingBytes = 20 + 4 + 8

func (p pending) encode() []byte {
	b := make([]byte, pendingBytes)
	copy(b, p.node.State[:])
	binary.LittleEndian.PutUint32(b[20:], uint32(p.node.Height))
	binary.LittleEndian.PutUint64(b[24:], uint64(p.slot))
	return b
}

func decodePending(b []byte) (pending, error) {
	if len(b) < pendingBytes {
		return pending{}, fmt.Errorf("%w: build task of %d bytes, want %d", ErrBadTree, len(b), pendingBytes)
	}
	var p pending
	copy(p.node.State[:], b)
	p.node.Height = int32(binary.LittleEndian.Uint32(b[20:]))
	p.slot = Ptr(binary.LittleEndian.Uint64(b[24:]))
	return p, nil
}

// Build generates the tree into the ranks' stores: rank 0 spawns the
// root's task, and tasks, stolen by idle ranks, store the nodes they
// generate where they run. It is collective.
func (m *Mem) Build(ctx context.Context) error {
	g, err := m.pool.NewGroup()
	if err != nil {
		return err
	}
	if m.rank == 0 {
		if err := g.Spawn(m.build, pending{node: Root(m.p), slot: noPtr}.encode()); err != nil {
			return err
		}
	}
	if err := g.Wait(ctx); err != nil {
		return fmt.Errorf("uts: build: %w", err)
	}
	if err := m.quiet(ctx); err != nil {
		return err
	}
	return m.shareRoot(ctx)
}

// shareRoot tells every rank where the root is, and whether a store
// filled up.
func (m *Mem) shareRoot(ctx context.Context) error {
	v := []int64{0, 0}
	if m.haveRoot {
		v[0] = int64(m.root) + 1 // only the rank that built the root has it
	}
	if m.full {
		v[1] = 1
	}
	if err := collective.AllreduceValues(ctx, m.c, v, v, func(a, b int64) int64 { return max(a, b) }); err != nil {
		return err
	}
	if v[1] != 0 {
		return fmt.Errorf("%w on a rank: the tree has more nodes than a rank can hold", ErrFull)
	}
	m.root = Ptr(v[0] - 1)
	return nil
}

// buildTask builds nodes depth first from its pending node; after each
// Budget nodes it hands the oldest node on its stack, the root of the
// largest subtree left, to a new task, and goes on with the rest.
func (m *Mem) buildTask(ctx context.Context, t *task.T, args []byte) error {
	first, err := decodePending(args)
	if err != nil {
		return err
	}
	from, stored, ok, err := decodeDealer(args[pendingBytes:], m.ranks)
	if err != nil {
		return err
	}
	if ok {
		m.heard[from].Store(stored)
	}
	stack := []pending{first}
	for done := 0; len(stack) > 0; done++ {
		if done >= m.cfg.Budget && len(stack) > 1 {
			if err := m.spill(t, stack[0]); err != nil {
				return err
			}
			stack, done = stack[1:], 0
		}
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if stack, err = m.store1(ctx, p, stack); err != nil {
			return err
		}
	}
	return nil
}

// store1 stores one node, links it to its parent and pushes its
// children.
func (m *Mem) store1(ctx context.Context, p pending, stack []pending) ([]pending, error) {
	k := m.p.NumChildren(p.node)
	idx, first, ok := m.store.alloc(k)
	if !ok {
		m.mu.Lock()
		m.full = true
		m.mu.Unlock()
		return nil, fmt.Errorf("%w: rank %d", ErrFull, m.rank)
	}
	*m.store.rec(idx) = record{height: p.node.Height, n: int32(k), first: first}
	if err := m.setSlot(ctx, p.slot, makePtr(m.rank, idx)); err != nil {
		return nil, err
	}
	for i := k - 1; i >= 0; i-- {
		stack = append(stack, pending{node: p.node.Child(i), slot: makePtr(m.rank, first+int64(i))})
	}
	return stack, nil
}

// spill deals a split-off subtree to the rank storing the fewest nodes as
// far as this rank knows (deal.go): a tree's subtrees differ in size by
// orders of magnitude, and stealing alone left one rank most of a deep,
// narrow tree (T3), since the rank that splits work runs its own tasks
// first. A task that stays here is public, so an idle rank may still
// steal it.
func (m *Mem) spill(t *task.T, p pending) error {
	mine := m.store.len()
	dest := dealTo(m.rank, mine, m.ranks, func(r int) int64 { return m.heard[r].Load() })
	if dest == m.rank {
		return t.Spawn(m.build, p.encode())
	}
	m.heard[dest].Add(int64(m.cfg.Budget)) // at least that much will be stored there
	return t.SpawnOn(dest, m.build, appendDealer(p.encode(), m.rank, mine))
}
