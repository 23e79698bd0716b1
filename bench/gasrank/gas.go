package gasrank

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/plexus-hpc/plexus/pgas"
)

// amSize is the bytes of an am bench message, as in the figure.
const amSize = 32

// am posts n 32-byte messages from rank 0 to rank 1, after a warm-up of
// n/10, and ends the clock when a Call, which runs after every Post before
// it, returns.
func (r *rank) am(ctx context.Context) error {
	if err := r.c.Barrier(ctx); err != nil {
		return err
	}
	if r.w.Rank() != 0 {
		return nil
	}
	args := make([]byte, amSize)
	if err := r.posts(ctx, args, max(r.o.n/10, 1)); err != nil {
		return err
	}
	start := time.Now()
	if err := r.posts(ctx, args, r.o.n); err != nil {
		return err
	}
	return r.emit("am", amSize, r.o.n, float64(r.o.n)/time.Since(start).Seconds())
}

// posts posts n messages to rank 1 and waits for them to run there.
func (r *rank) posts(ctx context.Context, args []byte, n int) error {
	for i := range n {
		args[0] = byte(i)
		if err := r.e.Post(ctx, 1, r.sink, args); err != nil {
			return err
		}
	}
	_, err := r.e.Call(ctx, 1, r.sink, args)
	return err
}

// delegateLatency times blocking FetchAndAdds from rank 0 on an element
// of rank 1 (element 8 starts the array's second block).
func (r *rank) delegateLatency(ctx context.Context) error {
	a, err := pgas.Alloc[int64](ctx, r.h, 16)
	if err != nil {
		return err
	}
	if err := r.c.Barrier(ctx); err != nil || r.w.Rank() != 0 {
		return err
	}
	p := a.At(8)
	if p.Addr().Rank != 1 {
		return errHome
	}
	if err := fetchAdds(ctx, p, max(r.o.n/10, 1)); err != nil {
		return err
	}
	start := time.Now()
	if err := fetchAdds(ctx, p, r.o.n); err != nil {
		return err
	}
	us := float64(time.Since(start).Microseconds()) / float64(r.o.n)
	return r.emit("delegate_latency", 8, r.o.n, us)
}

func fetchAdds(ctx context.Context, p pgas.Ptr[int64], n int) error {
	for range n {
		if _, err := p.FetchAndAdd(ctx, 1); err != nil {
			return err
		}
	}
	return nil
}

// gups: every rank posts n Adds to random elements, then Quiet and a
// barrier; updates/s of the job as rank 0 timed it.
func (r *rank) gups(ctx context.Context) error {
	a, err := pgas.Alloc[int64](ctx, r.h, 1<<r.o.log)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(r.w.Rank()), 1))
	if err := r.adds(ctx, a, rng, max(r.o.n/10, 1)); err != nil {
		return err
	}
	start := time.Now()
	if err := r.adds(ctx, a, rng, r.o.n); err != nil {
		return err
	}
	ops := float64(r.o.n * r.w.Size())
	return r.emit("gups", 8, r.o.n, ops/time.Since(start).Seconds())
}

// adds posts n random Adds and waits until every rank's are applied.
func (r *rank) adds(ctx context.Context, a pgas.Array[int64], rng *rand.Rand, n int) error {
	if err := r.c.Barrier(ctx); err != nil {
		return err
	}
	for range n {
		if err := a.At(rng.IntN(a.Len())).Add(ctx, 1); err != nil {
			return err
		}
	}
	if err := r.h.Quiet(ctx); err != nil {
		return err
	}
	return r.c.Barrier(ctx)
}
