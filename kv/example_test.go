package kv_test

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/kv"
)

// A job of three replica ranks and one client rank, in one process.
func Example() {
	twin := commtest.NewTwin(4)
	var ws []*comm.World
	for r := range 4 {
		w, err := twin.World(r, comm.Config{})
		if err != nil {
			panic(err)
		}
		defer w.Close()
		ws = append(ws, w)
	}
	ctx := context.Background()
	done := make(chan error, 3)
	for r := range 3 {
		go func() { done <- kv.ServeRanks(ctx, ws[r], kv.RanksConfig{Replicas: 3}) }()
	}
	c, err := kv.NewClient(ws[3], kv.ClientConfig{Replicas: 3, Prefer: 2})
	if err != nil {
		panic(err)
	}
	prev, err := c.Set(ctx, []byte("greeting"), []byte("hello"))
	fmt.Printf("set: replaced %q, %v\n", prev, err)
	prev, err = c.Set(ctx, []byte("greeting"), []byte("bonjour"))
	fmt.Printf("set: replaced %q, %v\n", prev, err)
	v, err := c.Get(ctx, []byte("greeting"))
	fmt.Printf("get: %q, %v\n", v, err)
	_ = c.Stop(ctx)
	for range 3 {
		<-done
	}
	// Output:
	// set: replaced "", <nil>
	// set: replaced "hello", <nil>
	// get: "bonjour", <nil>
}
