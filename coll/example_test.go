package coll_test

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/coll"
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
	bc, err := tree.Build(fourCPUs(), tree.Spec{Topology: tree.Adaptive, Root: 0})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Pin is off so the example runs anywhere.
	team, err := coll.NewTeam(coll.Config{Broadcast: bc})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	results := make([]string, team.Size())
	err = team.Run(ctx, func(m *coll.Member) error {
		sum := make([]int, 1)
		err := coll.AllreduceValues(ctx, m, []int{10 * m.CPU()}, sum, func(a, b int) int { return a + b })
		if err != nil {
			return err
		}
		buf := make([]byte, 64)
		n := 0
		if m.IsRoot() {
			n = copy(buf, "hello")
		}
		if n, err = m.Broadcast(ctx, buf, n); err != nil {
			return err
		}
		results[m.CPU()] = fmt.Sprintf("cpu %d: %q, sum %d", m.CPU(), buf[:n], sum[0])
		return m.Barrier(ctx)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		fmt.Println(r)
	}
	// Output:
	// cpu 0: "hello", sum 60
	// cpu 1: "hello", sum 60
	// cpu 2: "hello", sum 60
	// cpu 3: "hello", sum 60
}
