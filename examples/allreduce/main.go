// Allreduce computes statistics of a vector spread over the ranks: each
// rank holds a contiguous block of x, where x[i] = i mod 10, and one
// allreduce of a small vector gives every rank the global sum, the sum of
// squares and a histogram of the values, which each rank checks against
// what one process would compute. Rank 0 prints them.
//
//	plexus run -n 4 -- go run ./examples/allreduce -n 1000000
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
)

const bins = 10

func main() {
	n := flag.Int("n", 1_000_000, "length of the vector, over all ranks")
	timeout := flag.Duration("timeout", time.Minute, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *n); err != nil {
		fmt.Fprintln(os.Stderr, "allreduce:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, n int) error {
	w, err := comm.Join(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	c, err := collective.New(ctx, w, collective.Config{})
	if err != nil {
		return err
	}
	defer c.Close()
	lo, hi := block(n, w.Rank(), w.Size())
	local := stats(lo, hi)
	global := make([]float64, len(local))
	add := func(a, b float64) float64 { return a + b }
	if err := collective.AllreduceValues(ctx, c, local, global, add); err != nil {
		return err
	}
	if want := stats(0, n); !slices.Equal(global, want) {
		return fmt.Errorf("rank %d: allreduce gave %v, want %v", w.Rank(), global, want)
	}
	if w.Rank() == 0 {
		fmt.Printf("%d values on %d ranks: sum %.0f, norm %.6g, histogram %v\n",
			n, w.Size(), global[0], math.Sqrt(global[1]), global[2:])
	}
	return nil
}

// block returns the part [lo, hi) of n elements that rank owns of size
// ranks: equal blocks, the first n%size ranks one element longer.
func block(n, rank, size int) (lo, hi int) {
	q, r := n/size, n%size
	lo = rank*q + min(rank, r)
	hi = lo + q
	if rank < r {
		hi++
	}
	return lo, hi
}

// stats returns the sum of x[lo:hi], its sum of squares and the count of
// each value 0..9. The values are small integers, so the sums are exact
// in float64 whatever the order of the additions.
func stats(lo, hi int) []float64 {
	s := make([]float64, 2+bins)
	for i := lo; i < hi; i++ {
		x := float64(i % bins)
		s[0] += x
		s[1] += x * x
		s[2+i%bins]++
	}
	return s
}
