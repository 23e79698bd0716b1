package group

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// RanksConfig describes a group whose replicas are the ranks 0..Replicas-1
// of a comm.World (replica id = rank); other ranks of the world, such as
// clients, take no part.
type RanksConfig struct {
	Replicas int
	Mode     Mode
	// Model is the machine model of the ranks (CPU id = rank), such as
	// comm/collective's Comm.Model; nil means a uniform one with
	// topo.Estimate's costs.
	Model *topo.Model
	// Tag is the comm tag of the group's frames (default 0x7a00).
	Tag int
}

// Ranks is a Net between the ranks of a world. Its tree broadcast is
// relayed by the ranks themselves: a replica that receives a tree frame
// passes it to its children in the tree rooted at the frame's origin
// before delivering it, and a child that is gone is skipped by sending
// to its children instead. Safe for use by several goroutines.
type Ranks struct {
	w     *comm.World
	cfg   RanksConfig
	mu    sync.Mutex
	trees map[int]*tree.Tree
}

// NewRanks returns the Net of this rank's replica.
func NewRanks(w *comm.World, cfg RanksConfig) (*Ranks, error) {
	if cfg.Replicas < 1 || cfg.Replicas > w.Size() || w.Rank() >= cfg.Replicas {
		return nil, fmt.Errorf("%w: rank %d of %d as a replica of a group of %d", ErrConfig, w.Rank(), w.Size(), cfg.Replicas)
	}
	if cfg.Mode == 0 {
		cfg.Mode = Tree
	}
	if cfg.Tag == 0 {
		cfg.Tag = 0x7a00
	}
	if cfg.Model == nil {
		m, err := topo.Uniform(1, cfg.Replicas)
		if err == nil {
			err = topo.Estimate(m, topo.DefaultEstimate())
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		cfg.Model = m
	}
	return &Ranks{w: w, cfg: cfg, trees: map[int]*tree.Tree{}}, nil
}

// Send implements Net.
func (n *Ranks) Send(ctx context.Context, to int, frame []byte) error {
	return n.w.Send(ctx, to, n.cfg.Tag, frame)
}

// Broadcast implements Net.
func (n *Ranks) Broadcast(ctx context.Context, frame []byte) error {
	me := n.w.Rank()
	if n.cfg.Mode == Sequential {
		var errs []error
		for to := range n.cfg.Replicas {
			if to != me {
				errs = append(errs, n.Send(ctx, to, frame))
			}
		}
		return errors.Join(errs...)
	}
	return n.forward(ctx, me, me, frame)
}

// forward sends frame to u's children in the tree rooted at root, and to
// the children of a child that cannot be reached.
func (n *Ranks) forward(ctx context.Context, root, u int, frame []byte) error {
	t, err := n.tree(root)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range t.Children[u] {
		if err := n.Send(ctx, c, frame); err != nil {
			errs = append(errs, err, n.forward(ctx, root, c, frame))
		}
	}
	return errors.Join(errs...)
}

func (n *Ranks) tree(root int) (*tree.Tree, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if t, ok := n.trees[root]; ok {
		return t, nil
	}
	cpus := make([]int, n.cfg.Replicas)
	for i := range cpus {
		cpus[i] = i
	}
	t, err := tree.Build(n.cfg.Model, tree.Spec{Topology: tree.Adaptive, CPUs: cpus, Root: root})
	if err != nil {
		return nil, fmt.Errorf("%w: broadcast tree from replica %d: %w", ErrConfig, root, err)
	}
	n.trees[root] = t
	return t, nil
}

// maxKeptFrame bounds the buffer Serve keeps between frames: a rare long
// frame (a snapshot, a catch-up) gets a buffer of its own, which goes
// with it, so a replica does not hold a snapshot's worth of memory for
// the short frames of the normal case.
const maxKeptFrame = 64 << 10

// Serve receives the group's frames until ctx ends or every other rank
// is lost, relays tree frames and hands every frame to deliver, which
// must not keep it: Serve reuses its buffer for the next frame. It
// returns ctx.Err() when ctx ends.
func (n *Ranks) Serve(ctx context.Context, deliver func([]byte) error) error {
	var frame []byte
	for {
		st, err := n.w.Probe(ctx, comm.AnySource, n.cfg.Tag)
		if err != nil {
			return err
		}
		if cap(frame) < st.Len || cap(frame) > maxKeptFrame {
			frame = make([]byte, st.Len)
		}
		got, err := n.w.Recv(ctx, st.Source, n.cfg.Tag, frame[:st.Len])
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue // the sender was lost meanwhile
		}
		buf := frame[:got.Len]
		if kind, origin, _, err := frameHeader(buf); err == nil && kind == frameTree && n.cfg.Mode == Tree {
			_ = n.forward(ctx, origin, n.w.Rank(), buf)
		}
		_ = deliver(buf)
	}
}
