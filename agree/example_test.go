package agree_test

import (
	"fmt"

	"github.com/plexus-hpc/plexus/agree"
)

// Three replicas in one loop: replica 2 proposes, and the messages are
// delivered until every replica has decided the value.
func Example() {
	var nodes []*agree.Node
	for id := range 3 {
		n, err := agree.New(agree.Config{ID: id, Replicas: 3})
		if err != nil {
			panic(err)
		}
		nodes = append(nodes, n)
	}
	if err := nodes[2].Propose([]byte("x=1")); err != nil {
		panic(err)
	}
	for busy := true; busy; {
		busy = false
		for id, n := range nodes {
			rd := n.Ready()
			for _, e := range rd.Decided {
				fmt.Printf("replica %d decided slot %d: %s\n", id, e.Slot, e.Value)
			}
			for _, m := range rd.Messages {
				busy = true
				for to, peer := range nodes {
					if to == m.To || (m.To == agree.All && to != id) {
						c := m
						c.To = to
						_ = peer.Step(c)
					}
				}
			}
		}
	}
	// Unordered output:
	// replica 0 decided slot 1: x=1
	// replica 1 decided slot 1: x=1
	// replica 2 decided slot 1: x=1
}
