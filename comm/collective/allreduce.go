package collective

import (
	"fmt"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/transport/shm"
	"github.com/plexus-hpc/plexus/tree"
)

// planAllreduce is rank 0's choice of Allreduce's algorithm for every
// piece length up to MaxMessage: the one cfg forces, else the cheapest on
// the model of the ranks (tree.PlanAllreduce), so that every rank runs
// the same algorithm for a length whatever its own view of the costs.
//
// On a crowded machine (keepTrees) it keeps the trees: there every hop in
// a row waits for a CPU, which the costs do not show, and the trees'
// allreduce on one host (flat there) is two hops in a row where doubling
// takes log2(p), plus two with folds: never fewer (docs/benchmarks.md,
// "Allreduce by recursive doubling").
func planAllreduce(m *topo.Model, reduce, bcast *tree.Tree, cfg Config, crowded bool) (tree.AllreducePlan, error) {
	switch {
	case cfg.Allreduce != 0:
		return tree.FixedAllreduce(cfg.Allreduce), nil
	case crowded:
		return tree.FixedAllreduce(tree.AllreduceTrees), nil
	}
	p, err := tree.PlanAllreduce(m, reduce, bcast, cfg.MaxMessage&^63, tree.DefaultAllreduceCosts)
	if err != nil {
		return tree.AllreducePlan{}, fmt.Errorf("collective: allreduce plan on model %q: %w", m.Name, err)
	}
	return p, nil
}

// keepTrees reports whether the allreduce plan keeps the trees whatever
// the model says: when any rank's machine is crowded (more ranks than
// CPUs; one crowded host, or hosts that share a kernel's CPUs), every hop
// in a row waits for a CPU, which the placement costs do not show, and
// the trees measured faster than the doubling the model chose
// (docs/benchmarks.md, "Between namespace hosts on a quiet machine C").
func keepTrees(hs []hello, cfg Config) bool {
	return cfg.Given == nil && anyCrowded(hs)
}

// AllreducePlan returns Allreduce's algorithm on the links for each
// length of a piece (at most MaxMessage bytes; longer buffers go in
// pieces), the same at every rank. Lengths up to PostBytes do not use
// it: they run flat on the collective area.
func (c *Comm) AllreducePlan() tree.AllreducePlan { return c.allreduce }

// PostBytes returns the longest Allreduce that runs flat on the
// collective area, the same at every rank: shm.PostBytes when the ranks
// all share one shared-memory segment, the area had a lane
// left and neither Config.NoPosts nor Config.Allreduce said otherwise;
// else -1, and every length takes AllreducePlan's algorithm. It is
// shm.PostBytes too when the ranks span hosts and run in two levels (Config.Hierarchy), and when they span hosts evenly,
// at least two ranks on each, sharing memory within each, none crowded
// (or Config.AcrossCrowded), Config.NoPosts and Config.Allreduce saying
// nothing: then every rank folds its host's posts and exchanges the
// partial with its counterparts on the other hosts
// (docs/design/collectives.md, "Across hosts").
//
// The flat allreduce is chosen whenever it applies, not from the model:
// it is one round in which every rank's input is a load from a line its
// owner wrote, where every algorithm of the plan takes at least two hops
// in a row, each a ring message behind a sweep of the incoming rings
// (docs/design/collectives.md, "Posts across ranks").
func (c *Comm) PostBytes() int {
	if (c.hier != nil && c.cfg.Allreduce == 0) || c.across != nil {
		return shm.PostBytes // across hosts (hier.go, across.go)
	}
	if c.flat == nil || c.cfg.Allreduce != 0 {
		return -1
	}
	return shm.PostBytes
}
