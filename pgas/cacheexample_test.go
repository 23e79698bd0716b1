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

// Rank 0 fills an array striped over two ranks through a write-only
// cache; rank 1 then reads it whole through a read-only one: a message
// or two per rank, not one per element.
func ExampleArray_Acquire() {
	twin := commtest.NewTwin(2)
	ctx := context.Background()
	var wg sync.WaitGroup
	filled, read := make(chan struct{}), make(chan struct{}) // in a job, barriers
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
			a, _ := pgas.Alloc[int32](ctx, h, 100) // blocks of 16: on ranks 0, 1, 0, 1, ...
			if rank == 0 {
				c, _ := a.Acquire(ctx, 0, a.Len(), pgas.WriteOnly)
				for i := range c.Data() {
					c.Data()[i] = int32(i)
				}
				if err := c.Release(ctx); err != nil {
					panic(err)
				}
				close(filled)
			} else {
				<-filled
				c, _ := a.Acquire(ctx, 0, a.Len(), pgas.ReadOnly)
				var sum int32
				for _, v := range c.Data() {
					sum += v
				}
				fmt.Println("sum", sum, "of", len(c.Data()), "elements; element 20 lives at", a.At(20).Addr())
				c.Release(ctx)
				close(read)
			}
			<-read // no rank closes while others may still send to it
			e.Close(ctx)
		})
	}
	wg.Wait()
	// Output: sum 4950 of 100 elements; element 20 lives at 1:16
}
