package main

import (
	"context"
	"fmt"
	"io"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/bench"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/measure"
	"github.com/plexus-hpc/plexus/topo/sysfs"
	"github.com/plexus-hpc/plexus/tree"
)

// measuredLocal discovers this machine and measures it quickly; when that
// cannot be done (one CPU, no pinning) it says why and keeps the
// discovered model, whose costs the tour then estimates.
func measuredLocal(stderr io.Writer) func() (*topo.Model, error) {
	return func() (*topo.Model, error) {
		m, err := sysfs.Local()
		if err != nil {
			return nil, err
		}
		p := newProgress(stderr, "measure "+m.Name)
		r, err := measure.Pairwise(context.Background(), measure.Config{Quick: true}, p.update)
		p.finish()
		if err != nil {
			fmt.Fprintf(stderr, "plexus tour: not measuring this machine (%v); costs will be estimated\n", err)
			return m, nil
		}
		return measure.Merge(m, r)
	}
}

// tourTopologies are the trees the tour runs for real.
var tourTopologies = []tree.Topology{tree.Adaptive, tree.Best, tree.Binary, tree.Sequential}

// tourBench runs a quick bench coll on this machine's allowed CPUs.
func tourBench(w io.Writer, m *topo.Model) error {
	cpus, err := affinity.Allowed()
	if err != nil || len(cpus) < 2 {
		fmt.Fprintf(w, "\nnot running collectives: need 2 CPUs this process may use (%v %v)\n", cpus, err)
		return nil
	}
	cfg := bench.Config{Model: m, CPUs: cpus, Quick: true, Topologies: tourTopologies}
	res, err := bench.Coll(context.Background(), cfg, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nmeasured on %d goroutines pinned to CPUs %s, as a team pins its members, ns per operation;\n"+
		"the -unpinned rows run Go's own primitives on goroutines as Go programs start them, where a\n"+
		"hand-off can stay on one thread (pinned, each one wakes another thread); team rows also show\n"+
		"the simulator's prediction for the same tree on the model above (plexus bench coll for more)\n\n",
		len(cpus), formatCPUList(cpus))
	return bench.WriteTable(w, res)
}
