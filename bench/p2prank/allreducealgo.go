package p2prank

import (
	"github.com/plexus-hpc/plexus/bench"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/tree"
)

// allreduceVariant is one way the coll case also times the 8-byte
// allreduce with -algorithms, reported as "allreduce-<name>" next to
// "allreduce" (the one the model or the rules chose), so that one run
// compares them side by side with Open MPI's allreduce (plexus bench
// allreduce).
type allreduceVariant struct {
	name string
	cfg  collective.Config
}

// allreduceVariants are the variants for a world whose ranks sit on
// hosts (comm.World.Hosts): the algorithms forced on the links (trees,
// recursive doubling), and across hosts the two levels and, where every
// host holds as many ranks, at least two, the every-rank-crossing
// allreduce, forced on crowded machines too, where the rules leave it off.
func allreduceVariants(hosts [][]int) []allreduceVariant {
	vs := []allreduceVariant{
		{"trees", collective.Config{Topology: tree.Best, Allreduce: tree.AllreduceTrees}},
		{"doubling", collective.Config{Topology: tree.Best, Allreduce: tree.AllreduceDoubling}},
	}
	if len(hosts) < 2 {
		return vs
	}
	vs = append(vs, allreduceVariant{"hier", collective.Config{Topology: tree.Best, Hierarchy: true}})
	if collective.EvenHosts(hosts) {
		vs = append(vs, allreduceVariant{"across", collective.Config{Topology: tree.Best, AcrossCrowded: true}})
	}
	return vs
}

// allreduceAlgorithms times the 8-byte allreduce of the coll case on a
// communicator per variant, the default one (cfg, reported as
// "allreduce") first, the list rotated left by -rotate: whichever runs
// first or last in a job meets the machine in another state than the
// others (caches, the scheduler's placement of the ranks), so runs with
// successive -rotate give each the same share of every place.
func (r *rank) allreduceAlgorithms(n int, cfg collective.Config) error {
	vs := rotated(append([]allreduceVariant{{"", cfg}}, allreduceVariants(r.w.Hosts())...), r.o.rotate)
	for _, v := range vs {
		if err := r.variantAllreduce(v, n); err != nil {
			return err
		}
	}
	return nil
}

// rotated returns vs rotated left by k (any k ≥ 0).
func rotated(vs []allreduceVariant, k int) []allreduceVariant {
	k %= len(vs)
	return append(vs[k:len(vs):len(vs)], vs[:k]...)
}

func (r *rank) variantAllreduce(v allreduceVariant, n int) error {
	c, err := collective.New(r.ctx, r.w, v.cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	r.levels = c.Levels()
	if _, err := r.allreduces(c, bench.WarmupIters(n)); err != nil {
		return err
	}
	d, err := r.allreduces(c, n)
	if err != nil {
		return err
	}
	name := "allreduce"
	if v.name != "" {
		name += "-" + v.name
	}
	return r.report(name, 8, n, d)
}
