package tree_test

import (
	"fmt"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// A latency under load makes every hop dearer: a chain of four CPUs pays
// it three times each way in a barrier (+600 ns), a flat tree once each
// way (+200 ns), and the flat tree, slightly slower without latency, wins.
func ExampleSimulate_latency() {
	m := fourCPUs()
	chain := &tree.Tree{Root: 0, Children: map[int][]int{0: {1}, 1: {2}, 2: {3}, 3: {}}}
	flat := &tree.Tree{Root: 0, Children: map[int][]int{0: {1, 2, 3}, 1: {}, 2: {}, 3: {}}}
	show := func(label string) {
		c, _ := tree.Simulate(m, chain, tree.Barrier)
		f, _ := tree.Simulate(m, flat, tree.Barrier)
		fmt.Printf("%s: chain %.0f ns, flat %.0f ns\n", label, c.Latency, f.Latency)
	}
	show("no latency")
	m.Latency = topo.NewCosts(m.N(), false)
	for i := range m.N() {
		for j := range m.N() {
			if i != j {
				m.Latency.Mean[i][j] = 100
			}
		}
	}
	show("100 ns latency")
	// Output:
	// no latency: chain 1180 ns, flat 1140 ns
	// 100 ns latency: chain 1780 ns, flat 1340 ns
}
