// Stencil solves the 1-D heat equation on a grid spread over the ranks,
// overlapping communication with computation: every step each rank posts
// Irecvs for its two halo cells and Isends its two edge cells, updates the
// cells that need no halo while those messages travel, then waits and
// updates its two edge cells. The grid's ends are held at zero.
//
// At the end rank 0 gathers the grid, runs the same steps alone and checks
// that both give the very same numbers, then prints the time per step.
//
//	plexus run -n 4 -- go run ./examples/stencil -n 100000 -steps 1000
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

// Tags: a halo cell going right (to rank+1), one going left, and a block
// of the final grid going to rank 0. Messages between two ranks with the
// same tag arrive in the order they were sent, so one tag per direction
// keeps the steps apart.
const (
	tagRight = 1
	tagLeft  = 2
	tagGrid  = 3
)

// alpha is the diffusion number: stable for alpha ≤ 1/2.
const alpha = 0.25

func main() {
	n := flag.Int("n", 100_000, "cells of the grid, over all ranks")
	steps := flag.Int("steps", 1000, "time steps")
	timeout := flag.Duration("timeout", time.Minute, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *n, *steps); err != nil {
		fmt.Fprintln(os.Stderr, "stencil:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, n, steps int) error {
	w, err := comm.Join(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	if n < w.Size() {
		return fmt.Errorf("%d cells for %d ranks: want at least one each", n, w.Size())
	}
	lo, hi := block(n, w.Rank(), w.Size())
	u := make([]float64, hi-lo+2) // u[0] and u[len-1] are the halo cells
	for i := lo; i < hi; i++ {
		u[i-lo+1] = initial(i, n)
	}
	start := time.Now()
	u, err = solve(ctx, w, u, steps)
	if err != nil {
		return err
	}
	perStep := time.Since(start) / time.Duration(max(steps, 1))
	if w.Rank() != 0 {
		return w.Send(ctx, 0, tagGrid, encode(u[1:len(u)-1]))
	}
	grid, err := gather(ctx, w, n, u[1:len(u)-1])
	if err != nil {
		return err
	}
	diff := maxDiff(grid, serial(n, steps))
	if diff != 0 {
		return fmt.Errorf("the ranks' grid differs from one process's by up to %g", diff)
	}
	fmt.Printf("%d cells on %d ranks, %d steps: same as one process, heat left %.6g, %v per step\n",
		n, w.Size(), steps, sum(grid), perStep)
	return nil
}

// solve runs steps time steps on this rank's block u (halo cells
// included) and returns the block after the last.
func solve(ctx context.Context, w *comm.World, u []float64, steps int) ([]float64, error) {
	left, right := w.Rank()-1, w.Rank()+1
	m := len(u) - 2
	next := make([]float64, len(u))
	var sendL, sendR, recvL, recvR [8]byte
	reqs := make([]*comm.Request, 0, 4)
	for range steps {
		reqs = reqs[:0]
		var err error
		if left >= 0 {
			reqs, err = exchange(w, reqs, left, tagRight, tagLeft, recvL[:], sendL[:], u[1])
		}
		if err == nil && right < w.Size() {
			reqs, err = exchange(w, reqs, right, tagLeft, tagRight, recvR[:], sendR[:], u[m])
		}
		if err != nil {
			return nil, err
		}
		update(next, u, 2, m-1) // the cells that need no halo, while the halo travels
		if err := comm.WaitallInto(ctx, nil, reqs...); err != nil {
			return nil, err
		}
		if err := comm.Free(reqs...); err != nil { // the next step reuses them
			return nil, err
		}
		u[0], u[m+1] = 0, 0 // the grid's ends
		if left >= 0 {
			u[0] = decode(recvL[:])
		}
		if right < w.Size() {
			u[m+1] = decode(recvR[:])
		}
		update(next, u, 1, 1)
		update(next, u, max(m, 2), m)
		u, next = next, u
	}
	return u, nil
}

// exchange posts the receive of the halo cell from peer (sent with tag
// in) and the send of this rank's edge cell to it (with tag out), and
// appends both requests to reqs.
func exchange(w *comm.World, reqs []*comm.Request, peer, in, out int, recv, send []byte, edge float64) ([]*comm.Request, error) {
	r, err := w.Irecv(peer, in, recv)
	if err != nil {
		return reqs, err
	}
	reqs = append(reqs, r)
	binary.LittleEndian.PutUint64(send, math.Float64bits(edge))
	s, err := w.Isend(peer, out, send)
	if err != nil {
		return reqs, err
	}
	return append(reqs, s), nil
}

// update writes one explicit step of cells lo..hi of u into next.
func update(next, u []float64, lo, hi int) {
	for i := lo; i <= hi; i++ {
		next[i] = u[i] + alpha*(u[i-1]-2*u[i]+u[i+1])
	}
}

// gather assembles the whole grid at rank 0 from its own block and the
// other ranks' blocks.
func gather(ctx context.Context, w *comm.World, n int, own []float64) ([]float64, error) {
	grid := make([]float64, n)
	copy(grid, own)
	for r := 1; r < w.Size(); r++ {
		lo, hi := block(n, r, w.Size())
		buf := make([]byte, 8*(hi-lo))
		st, err := w.Recv(ctx, r, tagGrid, buf)
		if err != nil {
			return nil, err
		}
		if st.Len != len(buf) {
			return nil, fmt.Errorf("rank %d sent %d bytes of grid, want %d", r, st.Len, len(buf))
		}
		for i := range hi - lo {
			grid[lo+i] = decode(buf[8*i:])
		}
	}
	return grid, nil
}

// serial runs the same steps on the whole grid in one process.
func serial(n, steps int) []float64 {
	u := make([]float64, n+2)
	for i := range n {
		u[i+1] = initial(i, n)
	}
	next := make([]float64, n+2)
	for range steps {
		update(next, u, 1, n)
		u, next = next, u
	}
	return u[1 : n+1]
}

// initial is the temperature of cell i of n at the start: a hot middle
// third.
func initial(i, n int) float64 {
	if i >= n/3 && i < 2*n/3 {
		return 1
	}
	return 0
}

// block returns the cells [lo, hi) that rank owns of n cells over size
// ranks: equal blocks, the first n%size ranks one cell longer.
func block(n, rank, size int) (lo, hi int) {
	q, r := n/size, n%size
	lo = rank*q + min(rank, r)
	hi = lo + q
	if rank < r {
		hi++
	}
	return lo, hi
}

func encode(xs []float64) []byte {
	b := make([]byte, 8*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func decode(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }

func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}
