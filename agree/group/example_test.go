package group_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/plexus-hpc/plexus/agree"
	"github.com/plexus-hpc/plexus/agree/group"
)

// Three in-process replicas on a Team; replica 2 proposes, and each
// replica applies the decision.
func Example() {
	team, err := group.NewTeam(group.TeamConfig{Replicas: 3, Mode: group.Tree})
	if err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	wg.Add(3)
	var rs []*group.Replica
	for id := range 3 {
		r, err := group.New(group.Config{Agree: agree.Config{ID: id, Replicas: 3},
			Apply: func(e agree.Entry) { fmt.Printf("slot %d: %s\n", e.Slot, e.Value); wg.Done() }}, team.Net(id))
		if err != nil {
			panic(err)
		}
		rs = append(rs, r)
	}
	team.Attach(rs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, r := range rs {
		go r.Run(ctx)
	}
	if err := rs[2].Propose(ctx, []byte("hello")); err != nil {
		panic(err)
	}
	wg.Wait()
	// Output:
	// slot 1: hello
	// slot 1: hello
	// slot 1: hello
}
