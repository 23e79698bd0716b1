package p2prank

import (
	"context"
	"sync"
	"time"

	"github.com/plexus-hpc/plexus/bench"
	"github.com/plexus-hpc/plexus/comm"
)

// The multi-goroutine cases (bench.MTBenches): for each count g of -g,
// goroutine i of rank 0 talks to goroutine i of rank 1 on its own tags
// (tagMT+2i for data, tagMT+2i+1 for acknowledgements); ranks above 1 only
// join the barriers. See package bench for what is reported.

// latencyMT is osu_latency_mt with goroutines.
func (r *rank) latencyMT() error {
	buf := make([]byte, bench.MTSize)
	for _, g := range r.o.goroutines {
		n := bench.MTIters(r.o.base, g)
		d, err := r.timedMT(g, n, func(ctx context.Context, i, n int) error {
			return r.pingpongTag(ctx, tagMT+2*i, buf, make([]byte, len(buf)), n)
		})
		if err == nil {
			err = r.emitMT("latency_mt", g, n, micros(d)/float64(2*n))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pingpongTag runs n round trips on tag, sending from buf and receiving
// into rb. The multi-goroutine pairs share buf, which is only sent from,
// and each receives into its own rb; the single pair of latency passes
// one buffer as both, as bench/peers' latency.c does (one buffer, made
// once per size: a fresh receive buffer per call had a large message's
// first round trips fault its pages in, and two buffers double what the
// caches hold).
func (r *rank) pingpongTag(ctx context.Context, tag int, buf, rb []byte, n int) error {
	w := r.w
	for range n {
		var err error
		switch w.Rank() {
		case 0:
			if err = w.Send(ctx, 1, tag, buf); err == nil {
				_, err = w.Recv(ctx, 1, tag, rb)
			}
		case 1:
			if _, err = w.Recv(ctx, 0, tag, rb); err == nil {
				err = w.Send(ctx, 0, tag, rb)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// msgrateMT is the message rate of g senders at once, 8-byte messages.
func (r *rank) msgrateMT() error {
	for _, g := range r.o.goroutines {
		n, win := bench.MTIters(r.o.base, g), bench.MTWindow(r.o.window, g)
		d, err := r.timedMT(g, n, func(ctx context.Context, i, n int) error {
			return r.windowsTag(ctx, tagMT+2*i, win, n)
		})
		if err == nil {
			err = r.emitMT("msgrate_mt", g, n, float64(g*n*win)/d.Seconds())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// windowsTag streams n windows of win messages on tag, each acknowledged
// on tag+1. The receiver's window shares one buffer, as in windows.
func (r *rank) windowsTag(ctx context.Context, tag, win, n int) error {
	buf, reqs := make([]byte, bench.MTSize), make([]*comm.Request, win)
	for range n {
		var err error
		for i := range reqs {
			if r.w.Rank() == 0 {
				reqs[i], err = r.w.Isend(1, tag, buf)
			} else {
				reqs[i], err = r.w.Irecv(0, tag, buf)
			}
			if err != nil {
				return err
			}
		}
		if err := comm.WaitallInto(ctx, nil, reqs...); err != nil {
			return err
		}
		comm.Free(reqs...) // finished: MPI_Waitall frees them too
		if r.w.Rank() == 0 {
			_, err = r.w.Recv(ctx, 1, tag+1, nil)
		} else {
			err = r.w.Send(ctx, 0, tag+1, nil)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// timedMT runs f(i, ·) on g goroutines of ranks 0 and 1: each first runs
// its warm-up, then all wait for every rank to be ready (a barrier), then
// run n timed iterations at once. It returns the time from their release
// to the end of the last one. The first error cancels the others.
func (r *rank) timedMT(g, n int, f func(ctx context.Context, i, n int) error) (time.Duration, error) {
	if r.w.Rank() > 1 {
		return 0, r.barrier()
	}
	ctx, cancel := context.WithCancelCause(r.ctx)
	defer cancel(nil)
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	for i := range g {
		ready.Add(1)
		done.Go(func() {
			err := f(ctx, i, bench.WarmupIters(n))
			ready.Done()
			if err == nil {
				err = waitStart(ctx, start)
			}
			if err == nil {
				err = f(ctx, i, n)
			}
			if err != nil {
				cancel(err)
			}
		})
	}
	ready.Wait()
	if err := context.Cause(ctx); err != nil {
		done.Wait()
		return 0, err
	}
	if err := r.barrier(); err != nil {
		cancel(err)
		done.Wait()
		return 0, err
	}
	return release(ctx, &done, start)
}

// release opens start and times until done.
func release(ctx context.Context, done *sync.WaitGroup, start chan struct{}) (time.Duration, error) {
	t0 := time.Now()
	close(start)
	done.Wait()
	d := time.Since(t0)
	return d, context.Cause(ctx)
}

func waitStart(ctx context.Context, start <-chan struct{}) error {
	select {
	case <-start:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
