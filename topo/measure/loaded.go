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
// phase does; tick is called after each round.
func (r *Result) loaded(ctx context.Context, cfg Config, tick func()) error {
	n := len(r.CPUs)
	acc := make([][]float64, n*n)
	schedule := tournament(n)
	for pass := range rounds(cfg.Reps) {
		rc := cfg
		rc.Reps = repsIn(cfg.Reps, pass)
		for _, round := range schedule {
			if err := ctx.Err(); err != nil {
				return err
			}
			rtts, err := loadedRound(ctx, rc, r.CPUs, round)
			if err != nil {
				return err
			}
			for k, p := range round {
				acc[p[0]*n+p[1]] = append(acc[p[0]*n+p[1]], rtts[k]...)
			}
			tick()
		}
	}
	r.fillLatency(acc)
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

// loadedRound runs the pairs of one tournament round at once, each on a
// fresh queue pair, the lower CPU index pinging and the higher echoing,
// and returns each pair's round-trip samples. All goroutines of the round
// start together (onCPU's barrier counts them all). It returns ctx.Err()
// if ctx ends first, else the first error of any side.
func loadedRound(ctx context.Context, cfg Config, cpus []int, round [][2]int) ([][]float64, error) {
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	runs := make([]*pairRun, len(round))
	var ready atomic.Int32
	var wg sync.WaitGroup
	want := int32(2 * len(round))
	for k, p := range round {
		tx, rx := newPairs(cfg.Slots)
		run := &pairRun{cfg: cfg, tx: tx, rx: rx, base: time.Now()}
		run.out.rtt = make([]float64, 0, min(cfg.Reps, 1<<12))
		runs[k] = run
		for _, side := range []struct {
			cpu int
			f   func(context.Context) error
		}{{cpus[p[0]], run.pinger}, {cpus[p[1]], run.echoer}} {
			wg.Go(func() {
				if err := onCPU(rctx, side.cpu, &ready, want, side.f); err != nil {
					cancel(fmt.Errorf("loaded round, CPU %d: %w", side.cpu, err))
				}
			})
		}
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := context.Cause(rctx); err != nil {
		return nil, fmt.Errorf("measure: %w", err)
	}
	out := make([][]float64, len(runs))
	for k, run := range runs {
		out[k] = run.out.rtt
	}
	return out, nil
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
