package collective

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// maxBlob bounds a setup message, so that a wrong length from a broken or
// foreign peer is an error rather than a huge allocation.
const maxBlob = 64 << 20

// errPlan reports that rank 0 could not plan the trees.
var errPlan = errors.New("collective: no trees")

// plan makes every rank's trees: each rank says hello to rank 0 (after
// timing its pairs, for Measure); rank 0 builds the model and the trees
// and sends the trees back. The trees are built once, at rank 0, so every
// rank runs on the very same ones, whatever its floating-point unit does.
func (c *Comm) plan(ctx context.Context) (p plan, err error) {
	h := hello{Host: c.cfg.Host}
	if c.cfg.Model == Measure && c.cfg.Given == nil {
		if h, err = c.measure(ctx); err != nil {
			return plan{}, fmt.Errorf("collective: measuring the ranks: %w", err)
		}
	}
	h.Crowded, h.Machine = c.w.Crowded(), c.w.Machine()
	h.CPUs, _ = affinity.ProcessCPUs() // none where unknown: not apart
	if c.w.Rank() != 0 {
		return c.askPlan(ctx, h)
	}
	return c.makePlan(ctx, h)
}

// askPlan sends h to rank 0 and waits for the trees.
func (c *Comm) askPlan(ctx context.Context, h hello) (plan, error) {
	if err := c.sendJSON(ctx, 0, h); err != nil {
		return plan{}, err
	}
	var p plan
	if err := c.recvJSON(ctx, 0, &p); err != nil {
		return plan{}, err
	}
	if p.Err != "" {
		return plan{}, fmt.Errorf("%w: rank 0: %s", errPlan, p.Err)
	}
	if p.Reduce == nil || p.Bcast == nil {
		return plan{}, fmt.Errorf("%w: rank 0 sent none", errPlan)
	}
	return p, nil
}

// makePlan is rank 0's side: gather the hellos, plan, answer everyone,
// with the error if planning failed, so that nobody waits for trees that
// will not come.
func (c *Comm) makePlan(ctx context.Context, own hello) (ans plan, err error) {
	hs := []hello{own}
	for p := 1; p < c.w.Size(); p++ {
		var h hello
		if err := c.recvJSON(ctx, p, &h); err != nil {
			return plan{}, err
		}
		hs = append(hs, h)
	}
	c.model, ans.Reduce, ans.Bcast, err = c.trees(hs)
	if err == nil {
		ans.Allreduce, err = planAllreduce(c.model, ans.Reduce, ans.Bcast, c.cfg, keepTrees(hs, c.cfg))
	}
	ans.Crowded = anyCrowded(hs)
	ans.TwoLevels = twoLevels(c.w.Hosts(), hs, c.cfg)
	if err != nil {
		ans = plan{Err: err.Error()}
	}
	for p := 1; p < c.w.Size(); p++ {
		if serr := c.sendJSON(ctx, p, ans); serr != nil && err == nil {
			err = serr
		}
	}
	return ans, err
}

// trees builds the model (or takes the given one) and the trees on it.
func (c *Comm) trees(hs []hello) (*topo.Model, *tree.Tree, *tree.Tree, error) {
	m := c.cfg.Given
	if m == nil {
		var err error
		if m, err = rankModel(hs, c.cfg); err != nil {
			return nil, nil, nil, err
		}
	}
	cfg := c.cfg
	switch {
	case c.cfg.Given == nil && crowdedTopology(hs, cfg):
		cfg.Topology = tree.Sequential
	case c.cfg.Given == nil && cfg.Topology == tree.Best && anyCrowded(hs):
		// The model is placement's two costs there (rankModel), on which
		// Best's simulation ties trees that cross between hosts once per
		// host with trees that cross more; Adaptive sends across once per
		// host by construction (Smelt's remote-first order), and its
		// trees measured faster there (docs/benchmarks.md, "Between
		// namespace hosts on a quiet machine C").
		cfg.Topology = tree.Adaptive
	}
	r, b, err := buildTrees(m, cfg)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("collective: trees on model %q: %w", m.Name, err)
	}
	return m, r, b, nil
}

// sendJSON sends v to peer on the direct link: its length, then the
// encoding in pieces no longer than a link message.
func (c *Comm) sendJSON(ctx context.Context, peer int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("collective: encode setup message: %w", err)
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
	if err := c.sendDirect(ctx, peer, n[:]); err != nil {
		return err
	}
	return c.sendDirect(ctx, peer, b)
}

// recvJSON receives what sendJSON sent into v.
func (c *Comm) recvJSON(ctx context.Context, peer int, v any) error {
	var n [8]byte
	if err := c.recvDirect(ctx, peer, n[:]); err != nil {
		return err
	}
	size := binary.LittleEndian.Uint64(n[:])
	if size > maxBlob {
		return fmt.Errorf("collective: setup message of %d bytes from rank %d, limit %d", size, peer, maxBlob)
	}
	b := make([]byte, size)
	if err := c.recvDirect(ctx, peer, b); err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("collective: setup message from rank %d: %w", peer, err)
	}
	return nil
}
