package collective_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/comm/commtest"
)

// Three ranks on commtest's in-memory twin (in a real job each is a
// process that called comm.Join): rank 0 broadcasts a greeting, then the
// ranks sum their rank numbers.
func Example() {
	const n = 3
	ctx := context.Background()
	twin := commtest.NewTwin(n)
	var wg sync.WaitGroup
	out := make([]string, n)
	for r := range n {
		w, err := twin.World(r, comm.Config{})
		if err != nil {
			panic(err)
		}
		defer w.Close()
		wg.Go(func() {
			c, err := collective.New(ctx, w, collective.Config{Model: collective.Placement})
			if err != nil {
				panic(err)
			}
			msg := make([]byte, 5)
			if w.Rank() == 0 {
				copy(msg, "hello")
			}
			if err := c.Broadcast(ctx, 0, msg); err != nil {
				panic(err)
			}
			sum := make([]int, 1)
			err = collective.AllreduceValues(ctx, c, []int{w.Rank()}, sum, func(a, b int) int { return a + b })
			if err != nil {
				panic(err)
			}
			out[w.Rank()] = fmt.Sprintf("rank %d: %s, sum %d", w.Rank(), msg, sum[0])
		})
	}
	wg.Wait()
	for _, s := range out {
		fmt.Println(s)
	}
	// Output:
	// rank 0: hello, sum 3
	// rank 1: hello, sum 3
	// rank 2: hello, sum 3
}
