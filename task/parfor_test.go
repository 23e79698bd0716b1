package task

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// unbalanced is a loop body whose iterations in the first half of the
// range take a while and the rest none, so that the ranks owning the
// second half run dry and must steal to help.
func unbalanced(hits []atomic.Int32, n int64, slow time.Duration) func(context.Context, *T, int64) error {
	return func(_ context.Context, _ *T, i int64) error {
		hits[i].Add(1)
		if i < n/2 {
			time.Sleep(slow)
		}
		return nil
	}
}

// TestParallelForExactlyOnce: every index of an unbalanced loop runs
// exactly once on 2 and 3 ranks, and the idle ranks did steal.
func TestParallelForExactlyOnce(t *testing.T) {
	for _, ranks := range []int{2, 3} {
		t.Run(fmt.Sprintf("ranks=%d", ranks), func(t *testing.T) {
			const n = 2000
			hits := make([]atomic.Int32, n)
			var loop Loop
			j := newJob(t, ranks, Config{Workers: 4, Grain: 4}, func(rank int, p *Pool) {
				l := must(p.RegisterLoop("count", unbalanced(hits, n, 50*time.Microsecond)))
				if rank == 0 { // every rank's Loop is the same value
					loop = l
				}
			})
			ctx := testCtx(t)
			for _, err := range j.each(func(_ int, p *Pool) error { return p.ParallelFor(ctx, 0, n, loop) }) {
				if err != nil {
					t.Fatal(err)
				}
			}
			checkOnce(t, hits, 0)
			s := j.stats()
			if s.Steals == 0 || s.Stolen == 0 || s.Given != s.Stolen {
				t.Errorf("stats %+v: want steals, and as many tasks given as stolen", s)
			}
		})
	}
}

// checkOnce fails t unless every hit counter is 1, naming the first few
// that are not; off is the loop's first index.
func checkOnce(t *testing.T, hits []atomic.Int32, off int64) {
	t.Helper()
	bad := 0
	for i := range hits {
		if h := hits[i].Load(); h != 1 {
			if bad++; bad <= 5 {
				t.Errorf("index %d ran %d times, want once", int64(i)+off, h)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%d indices in all did not run exactly once", bad)
	}
}

// TestParallelForSequence: many loops in a row, with offsets and sizes
// that do not divide evenly (zero and one included), each complete
// before the next starts, with stealing off and on.
func TestParallelForSequence(t *testing.T) {
	for _, steal := range []bool{true, false} {
		t.Run(fmt.Sprintf("steal=%v", steal), func(t *testing.T) {
			const maxN = 300
			var hits [maxN]atomic.Int32
			var loop Loop
			j := newJob(t, 3, Config{Workers: 3, NoSteal: !steal}, func(rank int, p *Pool) {
				l := must(p.RegisterLoop("count", func(_ context.Context, _ *T, i int64) error {
					hits[i-1000].Add(1)
					return nil
				}))
				if rank == 0 {
					loop = l
				}
			})
			ctx := testCtx(t)
			for _, n := range []int64{0, 1, 2, 7, 100, maxN} {
				for _, err := range j.each(func(_ int, p *Pool) error { return p.ParallelFor(ctx, 1000, n, loop) }) {
					if err != nil {
						t.Fatal(err)
					}
				}
				checkOnce(t, hits[:n], 1000) // the loop finished before ParallelFor returned
				for i := range hits {
					hits[i].Store(0)
				}
			}
		})
	}
}
