package measure

import (
	"context"
	"slices"
	"time"

	"github.com/plexus-hpc/plexus/affinity"
)

// Pairwise measures the send and receive cost of every ordered pair of
// distinct CPUs in cfg.CPUs and then, unless cfg.SkipLoaded, the latency
// under load of every unordered pair (see the package documentation for
// the method), and returns them with the round-trip times. The calling
// goroutine is never pinned; each pair runs on two fresh goroutines.
//
// progress, if not nil, is called on the calling goroutine after each
// visit of a pair, and after each round of the loaded phase, with the
// steps done and the total: every pair is visited up to 4 times (see
// maxRounds), and the loaded phase's tournament is run as often, so the
// total is 4×n×(n−1) + 4×(n−1) for an even number n of CPUs (4×n more
// loaded rounds for odd n) and Reps ≥ 4.
//
// Pairwise returns ctx.Err() unchanged if ctx ends, promptly: every wait
// looks at ctx every 64 polls;
// an error wrapping ErrConfig or ErrTooFewCPUs for a bad config; one
// wrapping affinity.ErrNotAllowed naming the CPUs the process may not use.
func Pairwise(ctx context.Context, cfg Config, progress func(done, total int)) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	allowed, err := affinity.Allowed()
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if cfg.CPUs, err = resolveCPUs(cfg.CPUs, allowed); err != nil {
		return nil, err
	}
	r := newResult(cfg.CPUs, cfg)
	r.Start = time.Now()
	r.ClockNs = clockCost()
	n := len(cfg.CPUs)
	acc := make([]samples, n*n)
	done, total := 0, rounds(cfg.Reps)*n*(n-1)
	if !cfg.SkipLoaded {
		total += rounds(cfg.Reps) * len(tournament(n))
	}
	tick := func() {
		if done++; progress != nil {
			progress(done, total)
		}
	}
	for round := range rounds(cfg.Reps) {
		rc := cfg
		rc.Reps = repsIn(cfg.Reps, round)
		for i, from := range cfg.CPUs {
			for j, to := range cfg.CPUs {
				if i == j {
					continue
				}
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				s, err := measurePair(ctx, rc, from, to)
				if err != nil {
					return nil, err
				}
				acc[i*n+j].add(s)
				tick()
			}
		}
	}
	for k, s := range acc {
		if i, j := k/n, k%n; i != j {
			r.record(i, j, s)
		}
	}
	if !cfg.SkipLoaded {
		start := time.Now()
		if err := r.loaded(ctx, cfg, tick); err != nil {
			return nil, err
		}
		r.LoadedElapsed = time.Since(start)
	}
	r.Elapsed = time.Since(r.Start)
	return r, nil
}

// maxRounds is how many times Pairwise visits every pair, each time with
// fresh threads and rings, splitting Reps between the visits. The costs of
// one visit depend on how the two threads and the ring happen to fall (on
// the development machine one visit's mean send cost ranged over 16–54 ns
// with SDs of 2–9 ns), so a pair measured once can be off by far more than
// its SD says; over several visits the mean and SD reflect that spread.
const maxRounds = 4

func rounds(reps int) int { return min(reps, maxRounds) }

// repsIn returns the repetitions of round k of rounds(reps): reps split as
// evenly as possible.
func repsIn(reps, k int) int {
	r := rounds(reps)
	n := reps / r
	if k < reps%r {
		n++
	}
	return n
}

// clockCost returns the median time between two consecutive readings of
// the monotonic clock, the overhead each timed interval carries.
func clockCost() float64 {
	const n = 1001
	base := time.Now()
	d := make([]float64, n)
	for i := range d {
		t0 := time.Since(base)
		d[i] = float64(time.Since(base) - t0)
	}
	slices.Sort(d)
	return d[n/2]
}
