package collective

import (
	"fmt"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// planAllreduce is rank 0's choice of Allreduce's algorithm for every
// piece length up to MaxMessage: the one cfg forces, else the cheapest on
// the model of the ranks (tree.PlanAllreduce), so that every rank runs
// the same algorithm for a length whatever its own view of the costs.
func planAllreduce(m *topo.Model, reduce, bcast *tree.Tree, cfg Config) (tree.AllreducePlan, error) {
	if cfg.Allreduce != 0 {
		return tree.FixedAllreduce(cfg.Allreduce), nil
	}
	p, err := tree.PlanAllreduce(m, reduce, bcast, cfg.MaxMessage&^63, tree.DefaultAllreduceCosts)
	if err != nil {
		return tree.AllreducePlan{}, fmt.Errorf("collective: allreduce plan on model %q: %w", m.Name, err)
	}
	return p, nil
}

// AllreducePlan returns Allreduce's algorithm for each length of a piece
// (at most MaxMessage bytes; longer buffers go in pieces), the same at
// every rank.
func (c *Comm) AllreducePlan() tree.AllreducePlan { return c.allreduce }
