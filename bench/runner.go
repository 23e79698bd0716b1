package bench

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/affinity"
)

// body is what member i does in iteration it of a measured loop. Members
// run the same number of iterations, so a body may synchronise with the
// others (it is a collective).
type body func(i, it int) error

// runMembers runs n members, member i on a goroutine pinned to cpus[i]
// (or, unless pin, on a goroutine as Go starts it, free to run anywhere),
// each doing iters iterations of f after all have started, and returns the
// time member 0 took. It never pins the caller's goroutine.
func runMembers(cpus []int, pin bool, iters int, f body) (time.Duration, error) {
	n := len(cpus)
	var ready atomic.Int32
	var elapsed time.Duration
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, cpu := range cpus {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if pin {
				unpin, err := affinity.Pin(cpu)
				if err != nil {
					ready.Add(1) // let the others start; they will fail on the dead member's links or finish
					errs[i] = err
					return
				}
				defer unpin()
			}
			ready.Add(1)
			for ready.Load() < int32(n) {
				if !pin {
					runtime.Gosched() // the others may wait for this thread
				}
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

// runs are the runs of one case: the iteration count its calibration
// chose so one run takes about the target, and the ns per iteration of
// each run so far. On a shared or virtual machine single runs vary by
// several times (the host moves virtual CPUs); the median of a few is
// stable. Every run gets a fresh body from setup (fresh state: barriers,
// links).
//
// A stall during calibration (a descheduled virtual CPU) makes a few
// iterations look like a full run, and the case would then make runs far
// shorter than the target, each at the mercy of the next stall; so a run
// that ends under a quarter of the target lengthens the runs after it,
// as calibration would have. Runs are compared per iteration, so their
// lengths need not agree.
type runs struct {
	cpus   []int
	pin    bool
	target time.Duration
	iters  int
	per    []float64
	setup  func() (body, func(), error)
}

// startRuns calibrates a case; the calibration's last run is its first.
func startRuns(ctx context.Context, cpus []int, pin bool, target time.Duration, setup func() (body, func(), error)) (*runs, error) {
	iters, d, err := calibrate(ctx, cpus, pin, target, setup)
	if err != nil {
		return nil, err
	}
	r := &runs{cpus: cpus, pin: pin, target: target, iters: iters, setup: setup}
	r.per = append(r.per, float64(d.Nanoseconds())/float64(iters))
	return r, nil
}

// next makes one more run of the calibrated length.
func (r *runs) next(ctx context.Context) error {
	d, err := once(ctx, r.cpus, r.pin, r.iters, r.setup)
	if err != nil {
		return err
	}
	r.per = append(r.per, float64(d.Nanoseconds())/float64(r.iters))
	if d < r.target/4 && r.iters < maxIters {
		r.iters = nextIters(r.iters, d, r.target)
	}
	return nil
}

// median is the median ns per iteration of the runs so far.
func (r *runs) median() float64 {
	per := slices.Clone(r.per)
	slices.Sort(per)
	return per[len(per)/2]
}

// calibrate doubles (or extrapolates) the iteration count until a run
// takes at least a quarter of target, and returns that run.
func calibrate(ctx context.Context, cpus []int, pin bool, target time.Duration, setup func() (body, func(), error)) (int, time.Duration, error) {
	iters := 64
	for {
		d, err := once(ctx, cpus, pin, iters, setup)
		if err != nil || d >= target/4 || iters >= maxIters {
			return iters, d, err
		}
		iters = nextIters(iters, d, target)
	}
}

// once makes a fresh body and runs it for iters iterations.
func once(ctx context.Context, cpus []int, pin bool, iters int, setup func() (body, func(), error)) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	f, done, err := setup()
	if err != nil {
		return 0, err
	}
	defer done()
	return runMembers(cpus, pin, iters, f)
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
