package pgas

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

// lossKinds names the operations that the kill test expects to fail.
var lossKinds = []string{"Read", "Write", "CompareAndSwap", "FetchAndAdd", "Add", "Call",
	"ReadAsync", "WriteAsync", "CompareAndSwapAsync", "FetchAndAddAsync", "Acquire", "Release"}

// kill: rank lose loads the others for a moment, then exits as a crashed
// process does, closing nothing. The others keep running every kind of
// operation on elements of every rank until each kind has failed on
// lose with an error wrapping comm.ErrPeerLost; operations on live ranks
// must go on succeeding. Then the survivors meet through delegates on
// rank 0 (no collective, which would wait for lose) and exit.
func (r *rank) kill(ctx context.Context, lose int) error {
	a, err := Alloc[int64](ctx, r.h, 8*r.w.Size()*8) // eight blocks on each rank
	if err != nil {
		return err
	}
	meet, err := Alloc[int64](ctx, r.h, 2)
	if err != nil {
		return err
	}
	if err := r.c.Barrier(ctx); err != nil {
		return err
	}
	if r.w.Rank() == lose {
		r.load(ctx, a, 200*time.Millisecond)
		os.Exit(0)
	}
	seen, err := r.untilLost(ctx, a, lose)
	if err != nil {
		return err
	}
	fmt.Printf("rank %d: %s on lost rank %d failed with comm.ErrPeerLost\n", r.w.Rank(), strings.Join(seen, ", "), lose)
	return r.survivorsMeet(ctx, meet)
}

// load runs delegates on every rank for d, ignoring their results.
func (r *rank) load(ctx context.Context, a Array[int64], d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := range a.Len() {
			a.At(i).FetchAndAddAsync(ctx, 1)
		}
		a.At(0).FetchAndAdd(ctx, 1)
	}
}

// untilLost runs every kind of operation, on rankGoroutines goroutines,
// until each kind has failed on lose, and returns the kinds seen.
func (r *rank) untilLost(ctx context.Context, a Array[int64], lose int) ([]string, error) {
	var mu sync.Mutex
	lost := make(map[string]bool)
	errs := make(chan error, rankGoroutines)
	var wg sync.WaitGroup
	for g := range rankGoroutines {
		wg.Go(func() {
			for i := g; ; i++ {
				mu.Lock()
				done := len(lost) == len(lossKinds)
				mu.Unlock()
				if done {
					return
				}
				kind := lossKinds[i%len(lossKinds)]
				p := a.At((i/len(lossKinds)*8 + i%len(lossKinds)) % a.Len()) // each kind on every rank
				err := r.lossOp(ctx, a, p, kind)
				onLost := p.Addr().Rank == lose || kind == "Acquire" || kind == "Release"
				switch {
				case err == nil:
				case onLost && errors.Is(err, comm.ErrPeerLost):
					mu.Lock()
					lost[kind] = true
					mu.Unlock()
				default:
					errs <- fmt.Errorf("%s on %v (lost rank %d): %w", kind, p.Addr(), lose, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return slices.Sorted(maps.Keys(lost)), <-errs
}

// lossOp runs one operation of kind on p, or on the whole of a for the
// cache operations.
func (r *rank) lossOp(ctx context.Context, a Array[int64], p Ptr[int64], kind string) error {
	var err error
	switch kind {
	case "Read":
		_, err = p.Read(ctx)
	case "Write":
		err = p.Write(ctx, 5)
	case "CompareAndSwap":
		_, err = p.CompareAndSwap(ctx, 5, 6)
	case "FetchAndAdd":
		_, err = p.FetchAndAdd(ctx, 1)
	case "Add":
		// A posted Add to a lost rank fails once this rank has heard of
		// the loss, or else at the Read behind it. The Read also keeps
		// one Add in flight per goroutine: with unbounded Posts to a rank
		// that dies, am's outbox can fill its queue while its sender is
		// reporting the loss, and the two wait on each other (a bug of
		// am, not exercised here).
		if err = p.Add(ctx, 1); err == nil {
			_, err = p.Read(ctx)
		}
	case "Call":
		_, err = p.Call(ctx, r.inc, nil)
	case "ReadAsync":
		_, err = p.ReadAsync(ctx).Wait(ctx)
	case "WriteAsync":
		_, err = p.WriteAsync(ctx, 5).Wait(ctx)
	case "CompareAndSwapAsync":
		_, err = p.CompareAndSwapAsync(ctx, 5, 6).Wait(ctx)
	case "FetchAndAddAsync":
		_, err = p.FetchAndAddAsync(ctx, 1).Wait(ctx)
	case "Acquire":
		var c *Cache[int64]
		if c, err = a.Acquire(ctx, 0, a.Len(), ReadOnly); err == nil {
			err = c.Release(ctx)
		}
	case "Release":
		err = releaseAll(ctx, a)
	}
	return err
}

// releaseAll writes back a whole-array cache; only Release may fail.
func releaseAll(ctx context.Context, a Array[int64]) error {
	c, err := a.Acquire(ctx, 0, a.Len(), WriteOnly)
	if err != nil {
		return err
	}
	return c.Release(ctx)
}

// survivorsMeet is a barrier of the ranks but lose, through delegates
// on meet's elements 0 (arrivals) and 1 (departures), both on rank 0:
// each survivor adds an arrival and waits for all; then rank 0 waits for
// the others' departures, so that it exits after their last delegate.
func (r *rank) survivorsMeet(ctx context.Context, meet Array[int64]) error {
	live := int64(r.w.Size() - 1)
	if _, err := meet.At(0).FetchAndAdd(ctx, 1); err != nil {
		return err
	}
	if err := waitFor(ctx, meet.At(0), live); err != nil {
		return err
	}
	if r.w.Rank() == 0 {
		return waitFor(ctx, meet.At(1), live-1)
	}
	// Rank 0 leaves as soon as it reads this Add's effect in its memory,
	// which it may do before the Add's reply has left it (a word's
	// delegate is applied in place, then answered): then the reply is
	// lost with rank 0, and that is the meeting's end, not a failure.
	_, err := meet.At(1).FetchAndAdd(ctx, 1)
	if errors.Is(err, comm.ErrPeerLost) {
		return nil
	}
	return err
}

// waitFor polls p until it holds at least want.
func waitFor(ctx context.Context, p Ptr[int64], want int64) error {
	for {
		v, err := p.Read(ctx)
		if err != nil || v >= want {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}
