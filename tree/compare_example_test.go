package tree_test

import (
	"fmt"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// Compare every topology on a small two-socket machine whose costs are
// estimated from its topology, and report each latency relative to the
// best static tree, as Smelt's Figure 10 does. Best is built per op, so it
// leads in both columns.
func ExampleCompare() {
	m := &topo.Model{Name: "2x4", Nodes: make([]topo.Node, 2)}
	for id := range 8 {
		m.CPUs = append(m.CPUs, topo.CPU{ID: id, Package: id / 4, Core: id, Node: id / 4, L2: id, L3: id / 4})
	}
	if err := topo.Estimate(m, topo.DefaultEstimate()); err != nil {
		panic(err)
	}
	rows, err := tree.Compare(m, nil, tree.AutoRoot)
	if err != nil {
		panic(err)
	}
	fmt.Println("topology       bcast ns ratio  reduce ns ratio")
	for _, r := range rows {
		fmt.Printf("%-13s", r.Topology)
		for _, op := range []tree.Op{tree.Bcast, tree.Reduce} {
			l := r.Latency[op]
			fmt.Printf("  %8.1f  %.2f", l, l/tree.BestStatic(rows, op))
		}
		fmt.Println()
	}
	// Output:
	// topology       bcast ns ratio  reduce ns ratio
	// adaptive          496.5  0.95     849.9  1.31
	// best              496.5  0.95     585.7  0.90
	// binary            585.7  1.12     750.0  1.15
	// fibonacci         585.7  1.12     750.0  1.15
	// sequential        667.9  1.28    1407.1  2.17
	// mst               725.1  1.39     700.0  1.08
	// cluster           521.6  1.00     649.8  1.00
	// bad              1149.8  2.20    1349.9  2.08
	// adaptive-base     521.6  1.00     649.8  1.00
}
