package p2prank

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/plexus-hpc/plexus/bench"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/tree"
)

// The collectives are comm/collective's: Smelt's barrier, broadcast and
// reduction on trees the generator builds over a model of the ranks
// measured at start (Best trees), run by the same coll code as inside a
// process. The dissemination barrier below remains for the point-to-point
// cases' synchronisation.

// coll times barrier, bcast and allreduce the way bench/peers/coll.c does.
func (r *rank) coll() error {
	c, err := collective.New(r.ctx, r.w, collective.Config{Topology: tree.Best, Hierarchy: r.o.hierarchy})
	if err != nil {
		return err
	}
	defer c.Close()
	r.levels = c.Levels()
	defer func() { r.levels = 0 }()
	n := r.o.base
	cases := []struct {
		name string
		size int
		run  func(c *collective.Comm, n int) (time.Duration, error)
	}{
		{"barrier", 0, r.barriers},
		{"bcast", 8, r.bcasts},
		{"allreduce", 8, r.allreduces},
	}
	first := func() error { _, err := cases[0].run(c, bench.WarmupIters(n)); return err }
	if err := r.heat(first); err != nil {
		return err
	}
	if r.o.algorithms {
		cases = cases[:2] // the allreduce runs among the variants (allreducealgo.go)
	}
	for _, k := range cases {
		if _, err := k.run(c, bench.WarmupIters(n)); err != nil {
			return err
		}
		d, err := k.run(c, n)
		if err == nil {
			err = r.report(k.name, k.size, n, d)
		}
		if err != nil {
			return err
		}
	}
	if r.o.algorithms {
		return r.allreduceAlgorithms(n, collective.Config{Topology: tree.Best, Hierarchy: r.o.hierarchy})
	}
	return nil
}

func (r *rank) barriers(c *collective.Comm, n int) (time.Duration, error) {
	start := time.Now()
	for range n {
		if err := c.Barrier(r.ctx); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// bcasts times each broadcast alone, with a barrier after it so the root
// cannot run ahead of the slowest receiver.
func (r *rank) bcasts(c *collective.Comm, n int) (time.Duration, error) {
	var total time.Duration
	buf := make([]byte, 8)
	for range n {
		start := time.Now()
		if err := c.Broadcast(r.ctx, 0, buf); err != nil {
			return 0, err
		}
		total += time.Since(start)
		if err := c.Barrier(r.ctx); err != nil {
			return 0, err
		}
	}
	return total, nil
}

func (r *rank) allreduces(c *collective.Comm, n int) (time.Duration, error) {
	in, out := []float64{1}, []float64{0}
	start := time.Now()
	for range n {
		if err := collective.AllreduceValues(r.ctx, c, in, out, func(a, b float64) float64 { return a + b }); err != nil {
			return 0, err
		}
	}
	if out[0] != float64(r.w.Size()) {
		return 0, fmt.Errorf("allreduce summed %v, want %d", out[0], r.w.Size())
	}
	return time.Since(start), nil
}

// report prints, from rank 0, the mean over ranks of each rank's µs per op.
func (r *rank) report(name string, size, n int, d time.Duration) error {
	mine := micros(d) / float64(n)
	if r.w.Rank() != 0 {
		return r.w.Send(r.ctx, 0, tagReport, f64bytes(mine))
	}
	sum, buf := mine, make([]byte, 8)
	for p := 1; p < r.w.Size(); p++ {
		if _, err := r.w.Recv(r.ctx, p, tagReport, buf); err != nil {
			return err
		}
		sum += bytesf64(buf)
	}
	return r.emit(name, size, n, sum/float64(r.w.Size()))
}

// barrier is the dissemination barrier: in round k every rank signals
// rank+2^k and waits for rank-2^k.
func (r *rank) barrier() error {
	me, n := r.w.Rank(), r.w.Size()
	for k, round := 1, 0; k < n; k, round = k<<1, round+1 {
		req, err := r.w.Isend((me+k)%n, tagColl+round, nil)
		if err != nil {
			return err
		}
		if _, err := r.w.Recv(r.ctx, (me-k+n)%n, tagColl+round, nil); err != nil {
			return err
		}
		if _, err := req.Wait(r.ctx); err != nil {
			return err
		}
	}
	return nil
}

func f64bytes(v float64) []byte {
	return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))
}

func bytesf64(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }
