package main

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/plexus-hpc/plexus/bench"
)

// comm has no collectives across ranks yet, so these are the textbook
// small-message algorithms over Send and Recv — the ones Open MPI's tuned
// module picks for a few ranks: dissemination barrier, binomial broadcast,
// recursive-doubling allreduce.

// coll times barrier, bcast and allreduce the way bench/peers/coll.c does.
func (r *rank) coll() error {
	n := r.o.base
	cases := []struct {
		name string
		size int
		run  func(n int) (time.Duration, error)
	}{
		{"barrier", 0, r.barriers},
		{"bcast", 8, r.bcasts},
		{"allreduce", 8, r.allreduces},
	}
	for _, c := range cases {
		if _, err := c.run(bench.WarmupIters(n)); err != nil {
			return err
		}
		d, err := c.run(n)
		if err == nil {
			err = r.report(c.name, c.size, n, d)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *rank) barriers(n int) (time.Duration, error) {
	start := time.Now()
	for range n {
		if err := r.barrier(); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// bcasts times each broadcast alone, with a barrier after it so the root
// cannot run ahead of the slowest receiver.
func (r *rank) bcasts(n int) (time.Duration, error) {
	var total time.Duration
	buf := make([]byte, 8)
	for range n {
		start := time.Now()
		if err := r.bcast(buf); err != nil {
			return 0, err
		}
		total += time.Since(start)
		if err := r.barrier(); err != nil {
			return 0, err
		}
	}
	return total, nil
}

func (r *rank) allreduces(n int) (time.Duration, error) {
	start := time.Now()
	for range n {
		if _, err := r.allreduce(1); err != nil {
			return 0, err
		}
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

// bcast sends buf from rank 0 down a binomial tree.
func (r *rank) bcast(buf []byte) error {
	me, n := r.w.Rank(), r.w.Size()
	mask := 1
	for ; mask < n; mask <<= 1 {
		if me&mask != 0 {
			if _, err := r.w.Recv(r.ctx, me-mask, tagColl+32, buf); err != nil {
				return err
			}
			break
		}
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if me+mask < n {
			if err := r.w.Send(r.ctx, me+mask, tagColl+32, buf); err != nil {
				return err
			}
		}
	}
	return nil
}

// allreduce sums v over all ranks: recursive doubling when the size is a
// power of two, else a binomial reduce to rank 0 and a broadcast.
func (r *rank) allreduce(v float64) (float64, error) {
	if n := r.w.Size(); n&(n-1) != 0 {
		return r.reduceBcast(v)
	}
	buf := make([]byte, 8)
	for mask, round := 1, 0; mask < r.w.Size(); mask, round = mask<<1, round+1 {
		peer := r.w.Rank() ^ mask
		req, err := r.w.Isend(peer, tagColl+48+round, f64bytes(v))
		if err != nil {
			return 0, err
		}
		if _, err := r.w.Recv(r.ctx, peer, tagColl+48+round, buf); err != nil {
			return 0, err
		}
		if _, err := req.Wait(r.ctx); err != nil {
			return 0, err
		}
		v += bytesf64(buf)
	}
	return v, nil
}

// reduceBcast sums up a binomial tree to rank 0, then broadcasts the sum.
func (r *rank) reduceBcast(v float64) (float64, error) {
	me, n, buf := r.w.Rank(), r.w.Size(), make([]byte, 8)
	for mask := 1; mask < n; mask <<= 1 {
		if me&mask != 0 {
			if err := r.w.Send(r.ctx, me-mask, tagColl+64, f64bytes(v)); err != nil {
				return 0, err
			}
			break
		}
		if me+mask < n {
			if _, err := r.w.Recv(r.ctx, me+mask, tagColl+64, buf); err != nil {
				return 0, err
			}
			v += bytesf64(buf)
		}
	}
	copy(buf, f64bytes(v))
	err := r.bcast(buf)
	return bytesf64(buf), err
}

func f64bytes(v float64) []byte {
	return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))
}

func bytesf64(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }
