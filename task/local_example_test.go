package task_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/task"
)

// Two ranks each loop over the part of the data that only they hold:
// ForLocal's iterations never leave their rank, so the body indexes the
// rank's own slice. Whatever an iteration must do elsewhere it sends
// (SpawnOn), and ForLocal's return covers that too.
func ExamplePool_ForLocal() {
	twin := commtest.NewTwin(2)
	ctx := context.Background()
	const per = 4
	sums := make([]int64, 2) // what each rank received; in a job, each rank's own variable
	var mu sync.Mutex
	var wg sync.WaitGroup
	finished := make(chan struct{}) // in a job, a barrier (comm/collective)
	for rank := range 2 {
		w, err := twin.World(rank, comm.Config{})
		if err != nil {
			panic(err)
		}
		defer w.Close()
		wg.Go(func() {
			mine := make([]int64, per) // rank r holds the values r*per .. r*per+per-1
			for i := range mine {
				mine[i] = int64(rank*per + i)
			}
			var reg am.Registry
			pool, _ := task.New(&reg, task.Config{})
			add, _ := pool.Register("add", func(_ context.Context, t *task.T, args []byte) error {
				v, err := task.Int(args, 0)
				mu.Lock()
				sums[t.Rank()] += v
				mu.Unlock()
				return err
			})
			send, _ := pool.RegisterLoop("send", func(_ context.Context, t *task.T, i int64) error {
				// i indexes this rank's own slice; the value goes to the other rank.
				return t.SpawnOn(1-t.Rank(), add, task.Ints(mine[i]))
			})
			e, err := am.New(ctx, w, &reg, am.Config{})
			if err != nil {
				panic(err)
			}
			pool.Bind(e)
			if err := pool.ForLocal(ctx, 0, per, send); err != nil { // collective; own range
				panic(err)
			}
			if rank == 0 {
				mu.Lock()
				fmt.Println(sums)
				mu.Unlock()
				close(finished)
			}
			<-finished
			pool.Close(ctx)
			e.Close(ctx)
		})
	}
	wg.Wait()
	// Output: [22 6]
}
