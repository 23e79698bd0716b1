package coll_test

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/coll"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// fourCPUs is a four-CPU machine of two NUMA nodes.
func fourCPUs() *topo.Model {
	m := &topo.Model{Name: "four", Nodes: []topo.Node{{OSIndex: 0}, {OSIndex: 1}}}
	for id := range 4 {
		m.CPUs = append(m.CPUs, topo.CPU{ID: id, Package: id / 2, Core: id, Node: id / 2, L2: id, L3: id / 2})
	}
	m.Send, m.Recv = topo.NewCosts(4, false), topo.NewCosts(4, false)
	for i := range 4 {
		for j := range 4 {
			cross := float64((i / 2) ^ (j / 2)) // 1 between the nodes
			if i != j {
				m.Send.Mean[i][j], m.Recv.Mean[i][j] = 25+55*cross, 90+190*cross
			}
		}
	}
	return m
}

func Example() {
	bc, err := tree.Build(fourCPUs(), tree.Spec{Topology: tree.Adaptive, Root: 0})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Pin is off so the example runs anywhere; the twin transport would do
	// as well as the default rings.
	team, err := coll.NewTeam(coll.Config{Bcast: bc})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	results := make([]string, team.Size())
	err = team.Run(ctx, func(m *coll.Member) error {
		buf := make([]byte, 64)
		n := 0
		if m.IsRoot() {
			n = copy(buf, "hello")
		}
		n, err := m.Broadcast(ctx, buf, n)
		if err != nil {
			return err
		}
		sum, err := coll.AllreduceValue(m, ctx, 10*m.CPU(), func(a, b int) int { return a + b })
		if err != nil {
			return err
		}
		results[m.CPU()] = fmt.Sprintf("cpu %d: %q, sum %d", m.CPU(), buf[:n], sum)
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
