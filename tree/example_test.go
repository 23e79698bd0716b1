package tree_test

import (
	"fmt"
	"os"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// A four-CPU machine with two NUMA nodes: crossing nodes costs more.
func fourCPUs() *topo.Model {
	m := &topo.Model{Name: "four", Nodes: []topo.Node{{OSIndex: 0}, {OSIndex: 1}}}
	for id := range 4 {
		m.CPUs = append(m.CPUs, topo.CPU{ID: id, Package: id / 2, Core: id, Node: id / 2, L2: id, L3: id / 2})
	}
	m.Send, m.Recv = topo.NewCosts(4, false), topo.NewCosts(4, false)
	for i := range 4 {
		for j := range 4 {
			if i != j && i/2 == j/2 {
				m.Send.Mean[i][j], m.Recv.Mean[i][j] = 25, 90
			} else if i != j {
				m.Send.Mean[i][j], m.Recv.Mean[i][j] = 80, 280
			}
		}
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
	for _, op := range tree.Ops {
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
