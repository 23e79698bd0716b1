package p2prank

import (
	"github.com/plexus-hpc/plexus/bench"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/tree"
)

// forcedAlgorithms are the allreduce algorithms the coll case also times
// forced, with -algorithms, each reported as "allreduce-<algorithm>" next
// to "allreduce" (the one the model chose), so that one run compares them
// side by side with Open MPI's allreduce (plexus bench allreduce).
var forcedAlgorithms = []tree.Algorithm{tree.AllreduceTrees, tree.AllreduceDoubling}

// allreduceAlgorithms times the 8-byte allreduce of the coll case on a
// communicator per forced algorithm, with the trees chosen as for the
// default one.
func (r *rank) allreduceAlgorithms(n int) error {
	for _, a := range forcedAlgorithms {
		if err := r.forcedAllreduce(a, n); err != nil {
			return err
		}
	}
	return nil
}

func (r *rank) forcedAllreduce(a tree.Algorithm, n int) error {
	c, err := collective.New(r.ctx, r.w, collective.Config{Topology: tree.Best, Allreduce: a})
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
	return r.report("allreduce-"+a.String(), 8, n, d)
}
