package agree_test

import (
	"fmt"
	"strings"

	"github.com/plexus-hpc/plexus/agree"
)

// A replica's state is lost after two others compacted their logs: the
// restarted replica recovers from them, receives their snapshot and
// serves again once it has caught up.
func ExampleNode_Compact() {
	const replicas = 3
	nodes := make([]*agree.Node, replicas)
	state := make([][]string, replicas) // each replica's application: the values it applied
	for id := range nodes {
		nodes[id], _ = agree.New(agree.Config{ID: id, Replicas: replicas})
	}
	run := func(rounds int) { // tick everyone, then deliver until quiet
		for range rounds {
			for _, n := range nodes {
				n.Tick()
			}
			for busy := true; busy; {
				busy = false
				for id, n := range nodes {
					rd := n.Ready()
					if rd.Snapshot != nil {
						state[id] = strings.Split(string(rd.Snapshot.Data), ",")
						fmt.Printf("replica %d installed a snapshot of slots 1..%d: %v\n", id, rd.Snapshot.Index, state[id])
					}
					for _, e := range rd.Decided {
						state[id] = append(state[id], string(e.Value))
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
		}
	}
	for _, v := range []string{"x=1", "y=2", "x=3"} {
		_ = nodes[0].Propose([]byte(v))
	}
	run(1)
	for id := range 2 {
		_ = nodes[id].Compact(3, []byte(strings.Join(state[id], ",")))
	}
	nodes[2], _ = agree.New(agree.Config{ID: 2, Replicas: replicas, Restarted: true}) // its memory is gone
	state[2] = nil
	run(10)
	st := nodes[2].Status()
	fmt.Printf("replica 2: applied %d, recovering %v, state %v\n", st.Applied, st.Recovering, state[2])
	// Output:
	// replica 2 installed a snapshot of slots 1..3: [x=1 y=2 x=3]
	// replica 2: applied 3, recovering false, state [x=1 y=2 x=3]
}
