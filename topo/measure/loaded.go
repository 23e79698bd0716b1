package measure

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/topo"
)

// The loaded phase (see doc.go): the round trip of every unordered pair,
// timed while every other CPU is busy with round trips of its own, so that
// it includes the cache line's travel when the whole machine exchanges
// messages, which the pairwise phase's pipelined, one-pair-at-a-time
// costs leave out.

// loaded runs the loaded phase on r's CPUs and fills r.LoadedRTT and
// r.Latency from it and r's send and receive costs. It runs the tournament
// rounds(Reps) times, splitting Reps between the passes as the pairwise
// phase does; tick is called for each round, once the phase is done.
func (r *Result) loaded(ctx context.Context, cfg Config, tick func()) error {
	schedule := tournament(len(r.CPUs))
	var steps []loadedStep
	for pass := range rounds(cfg.Reps) {
		for _, round := range partners(len(r.CPUs), schedule) {
			steps = append(steps, loadedStep{partner: round, reps: repsIn(cfg.Reps, pass)})
		}
	}
	rtt, err := loadedPass(ctx, cfg, r.CPUs, steps)
	if err != nil {
		return err
	}
	for range steps {
		tick()
	}
	r.fillLatency(rtt)
	return nil
}

// fillLatency sets, for every pair a < b with round trips acc[a*n+b],
// LoadedRTT to their median (SD of the kept ones) and Latency to what the
// median leaves of half a round trip after the two sends and receives:
// L = max(0, RTT/2 − (s[a][b]+r[a][b]+s[b][a]+r[b][a])/2), both ways. A
// round trip is two dependent hops, one each way; the phase cannot tell
// them apart, so the flight is taken as equal both ways.
func (r *Result) fillLatency(acc [][]float64) {
	n := len(r.CPUs)
	r.LoadedRTT, r.Latency = topo.NewCosts(n, true), topo.NewCosts(n, true)
	s, rv := r.Send.Mean, r.Recv.Mean
	for a := range n {
		for b := a + 1; b < n; b++ {
			rtt := acc[a*n+b]
			med := median(rtt)
			_, sd := Summarize(rtt, DropFrac)
			l := max(0, med/2-(s[a][b]+rv[a][b]+s[b][a]+rv[b][a])/2)
			for _, ij := range [][2]int{{a, b}, {b, a}} {
				i, j := ij[0], ij[1]
				r.LoadedRTT.Mean[i][j], r.LoadedRTT.SD[i][j] = med, sd
				r.Latency.Mean[i][j], r.Latency.SD[i][j] = l, sd/2
			}
		}
	}
}

// median returns the middle of samples (the mean of the two middle ones
// for an even count), or 0 for none. It does not modify samples.
func median(samples []float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(samples))
	k := len(s) / 2
	if len(s)%2 == 1 {
		return s[k]
	}
	return (s[k-1] + s[k]) / 2
}

// loadedStep is one round of the loaded phase: each worker's partner (-1
// when it rests) and the timed round trips of every pair.
type loadedStep struct {
	partner []int
	reps    int
}

// loadedPass runs the steps in order and returns the round-trip samples of
// pair {a, b}, a < b, at index a*n+b. One worker goroutine is pinned to
// each CPU for all the steps, so that a round costs no thread start-up: on
// a machine whose every CPU is busy spinning, a thread woken to start a
// goroutine waits for a time slice, milliseconds a round. It returns
// ctx.Err() if ctx ends first, else the first error of any worker.
func loadedPass(ctx context.Context, cfg Config, cpus []int, steps []loadedStep) ([][]float64, error) {
	n := len(cpus)
	pctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ph := &loadedPhase{cfg: cfg, n: n, steps: steps,
		mail: make([]atomic.Pointer[pairRun], n), rtt: make([][]float64, n*n), bar: spinBarrier{n: int32(n)}}
	var ready atomic.Int32
	var wg sync.WaitGroup
	for w, cpu := range cpus {
		wg.Go(func() {
			work := func(ctx context.Context) error { return ph.worker(ctx, w) }
			if err := onCPU(pctx, cpu, &ready, int32(n), work); err != nil {
				cancel(fmt.Errorf("loaded phase, CPU %d: %w", cpu, err))
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := context.Cause(pctx); err != nil {
		return nil, fmt.Errorf("measure: %w", err)
	}
	return ph.rtt, nil
}

// loadedPhase is one pass of the loaded phase, shared by its workers.
//
// Invariants: steps and cfg are read-only; mail[w] is stored only by w's
// partner of the current round (the pinger, once, after making the
// round's fresh queue pair) and swapped back to nil only by w, before the
// round's barrier, so it is empty at every barrier; rtt[a*n+b] is written
// only by a, the pinger of pair {a, b}, and read after the pass's
// goroutines have all returned.
type loadedPhase struct {
	cfg   Config
	n     int
	steps []loadedStep
	mail  []atomic.Pointer[pairRun]
	rtt   [][]float64
	bar   spinBarrier
}

// partners turns a schedule into each worker's partner per round.
func partners(n int, schedule [][][2]int) [][]int {
	plan := make([][]int, len(schedule))
	for r, round := range schedule {
		plan[r] = slices.Repeat([]int{-1}, n)
		for _, p := range round {
			plan[r][p[0]], plan[r][p[1]] = p[1], p[0]
		}
	}
	return plan
}

// worker is worker w's loop over the rounds; it must run only on the
// goroutine pinned to CPU w. Every worker passes the barrier before each
// round, so the round's pairs run at once.
func (ph *loadedPhase) worker(ctx context.Context, w int) error {
	for _, st := range ph.steps {
		if err := ph.bar.wait(ctx); err != nil {
			return err
		}
		var err error
		switch p := st.partner[w]; {
		case p < 0:
		case w < p:
			err = ph.ping(ctx, w, p, st.reps)
		default:
			err = ph.echo(ctx, w)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ping makes the pair's fresh queue pair, hands it to partner p and times
// reps round trips.
func (ph *loadedPhase) ping(ctx context.Context, w, p, reps int) error {
	tx, rx := newPairs(ph.cfg.Slots)
	run := &pairRun{cfg: ph.cfg, tx: tx, rx: rx, base: time.Now()}
	run.cfg.Reps = reps
	run.out.rtt = make([]float64, 0, min(reps, 1<<12))
	ph.mail[p].Store(run)
	if err := run.pinger(ctx); err != nil {
		return err
	}
	k := w*ph.n + p
	ph.rtt[k] = append(ph.rtt[k], run.out.rtt...)
	return nil
}

// echo waits for the queue pair from w's pinger and echoes on it.
func (ph *loadedPhase) echo(ctx context.Context, w int) error {
	var run *pairRun
	if err := spin(ctx, func() bool { run = ph.mail[w].Swap(nil); return run != nil }); err != nil {
		return err
	}
	return run.echoer(ctx)
}

// spinBarrier is a reusable barrier of n goroutines that spin (see
// spinYield: it is never timed).
// count is how many have arrived in the current generation gen; the last
// to arrive resets count before it opens the next generation, so no
// goroutine can arrive in the new generation before the reset.
type spinBarrier struct {
	n          int32
	count, gen atomic.Int32
}

func (b *spinBarrier) wait(ctx context.Context) error {
	g := b.gen.Load()
	if b.count.Add(1) == b.n {
		b.count.Store(0)
		b.gen.Add(1)
		return nil
	}
	return spinYield(ctx, func() bool { return b.gen.Load() != g })
}

// pinger times Warmup+Reps round trips and keeps the last Reps; it must
// run only on the goroutine pinned to the pair's first CPU.
func (p *pairRun) pinger(ctx context.Context) error {
	msg, buf := make([]byte, msgSize), make([]byte, msgSize)
	for k := range p.cfg.Warmup + p.cfg.Reps {
		rtt, err := p.roundTrip(ctx, msg, buf)
		if err != nil {
			return err
		}
		if k >= p.cfg.Warmup {
			p.out.rtt = append(p.out.rtt, rtt)
		}
	}
	return nil
}

// echoer returns every message the pinger sends; it must run only on the
// goroutine pinned to the pair's second CPU.
func (p *pairRun) echoer(ctx context.Context) error {
	buf := make([]byte, msgSize)
	for range p.cfg.Warmup + p.cfg.Reps {
		if err := recvOne(ctx, p.rx, buf); err != nil {
			return err
		}
		if err := p.reply(buf); err != nil {
			return err
		}
	}
	return nil
}
