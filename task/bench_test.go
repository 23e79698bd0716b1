package task

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// spin burns about d of processor time, as a compute-bound iteration.
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// BenchmarkParallelFor runs an unbalanced loop on 2 ranks over shared
// memory: the first half of the range, rank 0's block, is slow and the
// second half, rank 1's, is empty. Without stealing rank 1 waits idle;
// with it rank 1 takes rank 0's pieces. body=sleep iterations wait (as
// tasks blocked on remote memory do) with the default workers; body=spin
// iterations compute, with one worker per rank, so stealing is what
// lets the second core help.
func BenchmarkParallelFor(b *testing.B) {
	const n = 2048
	for _, body := range []string{"sleep", "spin"} {
		for _, steal := range []bool{true, false} {
			b.Run(fmt.Sprintf("body=%s/steal=%v", body, steal), func(b *testing.B) {
				slow := func(i int64) {}
				cfg := Config{NoSteal: !steal, Grain: 4}
				switch body {
				case "sleep":
					slow = func(i int64) { time.Sleep(50 * time.Microsecond) }
				case "spin":
					slow = func(i int64) { spin(20 * time.Microsecond) }
					cfg.Workers = 1
				}
				benchLoop(b, n, cfg, slow)
			})
		}
	}
}

func benchLoop(b *testing.B, n int64, cfg Config, slow func(int64)) {
	var loop Loop
	j := newJobOver(b, transportWorlds(b, "shm", 2), cfg, func(rank int, p *Pool) {
		l := must(p.RegisterLoop("unbalanced", func(_ context.Context, _ *T, i int64) error {
			if i < n/2 {
				slow(i)
			}
			return nil
		}))
		if rank == 0 {
			loop = l
		}
	})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, err := range j.each(func(_ int, p *Pool) error { return p.ParallelFor(ctx, 0, n, loop) }) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	s := j.stats()
	b.ReportMetric(float64(b.N)*float64(n)/b.Elapsed().Seconds(), "iters/s")
	b.ReportMetric(float64(s.Stolen)/float64(b.N), "stolen/op")
}

// BenchmarkParallelForEmpty times a collective ParallelFor of two
// trivial iterations on 2 ranks over shared memory: the cost of a group
// (two waves, the decision, the other rank's answer) that every loop
// pays, as a BFS pays it at every level.
func BenchmarkParallelForEmpty(b *testing.B) {
	var loop Loop
	j := newJobOver(b, transportWorlds(b, "shm", 2), Config{}, func(rank int, p *Pool) {
		l := must(p.RegisterLoop("nothing", func(context.Context, *T, int64) error { return nil }))
		if rank == 0 {
			loop = l
		}
	})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, err := range j.each(func(_ int, p *Pool) error { return p.ParallelFor(ctx, 0, 2, loop) }) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(j.pools[0].Stats().Waves)/float64(b.N), "waves/op")
}
