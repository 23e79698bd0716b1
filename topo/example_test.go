package topo_test

import (
	"bytes"
	"fmt"

	"github.com/plexus-hpc/plexus/topo"
)

// A two-CPU model built by hand, saved and loaded again.
func Example() {
	m := &topo.Model{
		Name:       "tiny",
		Provenance: topo.Provenance{Source: "example"},
		Nodes:      []topo.Node{{OSIndex: 0}},
		CPUs:       []topo.CPU{{ID: 0, L2: -1, L3: 0}, {ID: 1, Core: 1, L2: -1, L3: 0}},
		Send:       topo.NewCosts(2, false),
		Recv:       topo.NewCosts(2, false),
	}
	m.Send.Mean[0][1], m.Recv.Mean[0][1] = 25, 90
	m.Send.Mean[1][0], m.Recv.Mean[1][0] = 26, 88
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		fmt.Println(err)
		return
	}
	back, err := topo.Load(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, c, n := back.Counts()
	fmt.Printf("%s: %d package, %d cores, %d node; 0→1 costs %.0f ns to send, %.0f ns to receive\n",
		back.Name, p, c, n, back.Send.Mean[0][1], back.Recv.Mean[0][1])
	// Output: tiny: 1 package, 2 cores, 1 node; 0→1 costs 25 ns to send, 90 ns to receive
}
