// Pgas counts into a global array: every rank's goroutines add to
// counters striped over all ranks with FetchAndAdd delegates (blocking,
// async, and posted Adds), then rank 0 checks that the sum is exact.
// Then every rank writes its share of a second array through a cache,
// and rank 0 reads the whole array back through another.
//
//	plexus run -n 3 -- go run ./examples/pgas -n 2000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/pgas"
)

func main() {
	n := flag.Int("n", 2000, "adds each goroutine makes")
	goroutines := flag.Int("g", 8, "goroutines per rank")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, *n, *goroutines); err != nil {
		fmt.Fprintln(os.Stderr, "pgas:", err)
		os.Exit(1)
	}
}

const counters = 64 // 8 blocks of int64: spread over the ranks

func run(ctx context.Context, n, goroutines int) error {
	w, err := comm.Join(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	c, err := collective.New(ctx, w, collective.Config{})
	if err != nil {
		return err
	}
	defer c.Close()
	var reg am.Registry
	h, err := pgas.New(&reg, pgas.Config{})
	if err != nil {
		return err
	}
	e, err := am.New(ctx, w, &reg, am.Config{})
	if err != nil {
		return err
	}
	if err := h.Bind(e); err != nil {
		return err
	}
	a, err := pgas.Alloc[int64](ctx, h, counters) // collective
	if err != nil {
		return err
	}
	if err := add(ctx, a, w.Rank(), n, goroutines); err != nil {
		return err
	}
	if err := h.Quiet(ctx); err != nil { // this rank's posted Adds are applied
		return err
	}
	if err := c.Barrier(ctx); err != nil { // and every rank's
		return err
	}
	if w.Rank() == 0 {
		if err := check(ctx, a, int64(w.Size()*goroutines*n)); err != nil {
			return err
		}
	}
	if err := squares(ctx, h, c, n); err != nil {
		return err
	}
	if err := c.Barrier(ctx); err != nil { // nobody closes while others send to it
		return err
	}
	return e.Close(ctx)
}

// squares fills a global array of n elements per rank through caches:
// each rank acquires write-only its share, which spans every rank's
// blocks, and releases it; then rank 0 reads the whole array through a
// read-only cache and checks it.
func squares(ctx context.Context, h *pgas.Heap, c *collective.Comm, n int) error {
	size, rank := h.Layout().Ranks, h.Rank()
	a, err := pgas.Alloc[int64](ctx, h, n*size) // collective
	if err != nil {
		return err
	}
	mine, err := a.Acquire(ctx, rank*n, n, pgas.WriteOnly)
	if err != nil {
		return err
	}
	for i := range mine.Data() {
		k := int64(mine.Start() + i)
		mine.Data()[i] = k * k
	}
	if err := mine.Release(ctx); err != nil { // written at every home
		return err
	}
	if err := c.Barrier(ctx); err != nil { // every rank's share
		return err
	}
	if rank != 0 {
		return nil
	}
	all, err := a.Acquire(ctx, 0, a.Len(), pgas.ReadOnly)
	if err != nil {
		return err
	}
	defer all.Release(ctx)
	for i, v := range all.Data() {
		if v != int64(i)*int64(i) {
			return fmt.Errorf("element %d is %d after write-back; want %d", i, v, i*i)
		}
	}
	fmt.Printf("cache write-back of %d elements from %d ranks is exact\n", a.Len(), size)
	return nil
}

// add makes n adds on each of goroutines goroutines, in turn blocking,
// async and posted, to counters chosen so that every rank is hit.
func add(ctx context.Context, a pgas.Array[int64], rank, n, goroutines int) error {
	errs := make(chan error, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range n {
				p := a.At((rank*7 + g*3 + i) % counters)
				var err error
				switch i % 3 {
				case 0:
					_, err = p.FetchAndAdd(ctx, 1)
				case 1:
					_, err = p.FetchAndAddAsync(ctx, 1).Wait(ctx)
				case 2:
					err = p.Add(ctx, 1)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func check(ctx context.Context, a pgas.Array[int64], want int64) error {
	var sum int64
	for i := range a.Len() {
		v, err := a.At(i).Read(ctx)
		if err != nil {
			return err
		}
		sum += v
	}
	if sum != want {
		return fmt.Errorf("counters sum to %d; want %d", sum, want)
	}
	fmt.Printf("FetchAndAdd sum %d of %d counters is exact\n", sum, a.Len())
	return nil
}
