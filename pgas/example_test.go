package pgas_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/pgas"
)

// Two ranks in one process share a global array of counters; each adds
// to every counter, wherever it lives. In a job, each rank is its own
// process and gets its world from comm.Join.
func Example() {
	twin := commtest.NewTwin(2)
	ctx := context.Background()
	var added, wg sync.WaitGroup
	added.Add(2)
	finished := make(chan struct{}) // in a job, barriers (comm/collective)
	for rank := range 2 {
		w, err := twin.World(rank, comm.Config{})
		if err != nil {
			panic(err)
		}
		defer w.Close()
		wg.Go(func() {
			var reg am.Registry
			h, _ := pgas.New(&reg, pgas.Config{})
			e, err := am.New(ctx, w, &reg, am.Config{})
			if err != nil {
				panic(err)
			}
			h.Bind(e)
			counts, _ := pgas.Alloc[int64](ctx, h, 16) // 8 per block: elements 8-15 on rank 1
			for i := range counts.Len() {
				counts.At(i).FetchAndAdd(ctx, int64(i))
			}
			added.Done()
			added.Wait()
			if rank == 0 {
				v, _ := counts.At(15).Read(ctx)
				fmt.Println(counts.At(15).Addr(), v)
				close(finished)
			}
			<-finished // no rank closes while others may still send to it
			e.Close(ctx)
		})
	}
	wg.Wait()
	// Output: 1:56 30
}
