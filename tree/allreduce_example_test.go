package tree_test

import (
	"fmt"

	"github.com/plexus-hpc/plexus/tree"
)

// ExamplePlanAllreduce chooses an allreduce algorithm per vector length on
// a machine model, as comm/collective does between ranks.
func ExamplePlanAllreduce() {
	m := fourCPUs()
	t, err := tree.Build(m, tree.Spec{Topology: tree.Adaptive, Root: 0})
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := tree.PlanAllreduce(m, t, t, 64<<10, tree.DefaultAllreduceCosts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(plan)
	for _, a := range tree.Algorithms() {
		ns, _ := tree.SimulateAllreduce(m, t, t, a, 8, tree.DefaultAllreduceCosts)
		fmt.Printf("8 B %s: %.0f ns\n", a, ns)
	}
	// Output:
	// doubling, rabenseifner from 2048 B
	// 8 B trees: 1125 ns
	// 8 B doubling: 481 ns
	// 8 B rabenseifner: 954 ns
}
