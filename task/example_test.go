package task_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/task"
)

// Two ranks in one process run a parallel loop together: each starts
// with half of the indices, and an idle rank steals from the other. In
// a job, each rank is its own process and gets its world from comm.Join.
func Example() {
	twin := commtest.NewTwin(2)
	ctx := context.Background()
	var sum atomic.Int64 // in a job, each rank sums its part, then a reduce
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
			pool, _ := task.New(&reg, task.Config{})
			square, _ := pool.RegisterLoop("square", func(_ context.Context, _ *task.T, i int64) error {
				sum.Add(i * i)
				return nil
			})
			e, err := am.New(ctx, w, &reg, am.Config{})
			if err != nil {
				panic(err)
			}
			pool.Bind(e)
			if err := pool.ParallelFor(ctx, 0, 1000, square); err != nil { // collective
				panic(err)
			}
			if rank == 0 {
				fmt.Println(sum.Load())
				close(finished)
			}
			<-finished
			pool.Close(ctx)
			e.Close(ctx)
		})
	}
	wg.Wait()
	// Output: 332833500
}
