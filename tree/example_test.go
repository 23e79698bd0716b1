package tree_test

import (
	"fmt"
	"os"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// fourCPUs is a four-CPU machine of two NUMA nodes, where crossing nodes
// costs more.
func fourCPUs() *topo.Model {
	m, err := topo.TwoClass(2, 2, 25, 90, 80, 280)
	if err != nil {
		panic(err) // constant, valid arguments
	}
	return m
}

func Example() {
	m := fourCPUs()
	t, err := tree.Build(m, tree.Spec{Topology: tree.Adaptive, Root: 0})
	if err != nil {
		fmt.Println(err)
		return
	}
	t.WriteText(os.Stdout)
	for _, op := range tree.Ops() {
		r, _ := tree.Simulate(m, t, op)
		fmt.Printf("%s: %.0f ns\n", op, r.Latency)
	}
	// Output:
	// adaptive tree, root 0, 4 members, depth 1
	// 0
	//   2
	//   3
	//   1
	// bcast: 440 ns
	// reduce: 675 ns
	// barrier: 1115 ns
}
