package am_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
)

// Two ranks in one process: each registers the same handler, rank 0
// posts to rank 1 and then calls it. In a job, each rank is its own
// process and gets its world from comm.Join.
func Example() {
	twin := commtest.NewTwin(2)
	ctx := context.Background()
	var wg sync.WaitGroup
	finished := make(chan struct{}) // in a job, a barrier (comm/collective)
	for rank := range 2 {
		w, err := twin.World(rank, comm.Config{})
		if err != nil {
			panic(err)
		}
		defer w.Close()
		wg.Go(func() {
			var reg am.Registry
			var total int
			add, _ := reg.Register("add", func(_ context.Context, from int, args []byte) ([]byte, error) {
				total += int(args[0]) // handlers from one source run one at a time
				return []byte{byte(total)}, nil
			})
			e, err := am.New(ctx, w, &reg, am.Config{})
			if err != nil {
				panic(err)
			}
			if rank == 0 {
				e.Post(ctx, 1, add, []byte{40})
				reply, err := e.Call(ctx, 1, add, []byte{2}) // runs after the Post
				fmt.Println(reply[0], err)
				close(finished)
			}
			<-finished // no rank closes while others may still send to it
			e.Close(ctx)
		})
	}
	wg.Wait()
	// Output: 42 <nil>
}
