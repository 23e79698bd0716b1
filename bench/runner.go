package bench

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/affinity"
)

// body is what member i does in iteration it of a measured loop. Members
// run the same number of iterations, so a body may synchronise with the
// others (it is a collective).
type body func(i, it int) error

// runPinned runs n members, member i on a goroutine pinned to cpus[i],
// each doing iters iterations of f after all have started, and returns the
// time member 0 took. It never pins the caller's goroutine.
func runPinned(cpus []int, iters int, f body) (time.Duration, error) {
	n := len(cpus)
	var ready atomic.Int32
	var elapsed time.Duration
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, cpu := range cpus {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unpin, err := affinity.Pin(cpu)
			if err != nil {
				ready.Add(1) // let the others start; they will fail on the dead member's links or finish
				errs[i] = err
				return
			}
			defer unpin()
			ready.Add(1)
			for ready.Load() < int32(n) {
			}
			start := time.Now()
			for it := range iters {
				if err := f(i, it); err != nil {
					errs[i] = err
					return
				}
			}
			if i == 0 {
				elapsed = time.Since(start)
			}
		}()
	}
	wg.Wait()
	return elapsed, errors.Join(errs...)
}

// measure calibrates the iteration count so one run takes about target,
// then runs and returns ns per iteration and the count. setup makes a
// fresh body for each run (fresh state: barriers, links).
func measure(ctx context.Context, cpus []int, target time.Duration, setup func() (body, func(), error)) (float64, int, error) {
	iters := 64
	for {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		f, done, err := setup()
		if err != nil {
			return 0, 0, err
		}
		d, err := runPinned(cpus, iters, f)
		done()
		if err != nil {
			return 0, 0, err
		}
		if d >= target/4 || iters >= maxIters {
			return float64(d.Nanoseconds()) / float64(iters), iters, nil
		}
		iters = nextIters(iters, d, target)
	}
}

// maxIters bounds a run whatever the calibration says.
const maxIters = 20_000_000

func nextIters(iters int, d, target time.Duration) int {
	if d <= 0 {
		return min(iters*100, maxIters)
	}
	n := int(float64(iters) * float64(target) / float64(d))
	return min(max(n, iters*2), maxIters)
}
