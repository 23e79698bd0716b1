package graph

import (
	"context"
	"fmt"
	"math"
)

// bcState is a rank's part of a betweenness computation.
type bcState struct {
	level  []int32
	sigma  []float64
	delta  []float64
	bc     []float64
	levels [][]uint32 // the local vertices of each level of the current source
}

// Centrality returns, for each local vertex, the betweenness accumulated
// from the sources by Brandes' algorithm, as SerialBrandes computes it:
// a forward search that counts shortest paths (sigma) at each vertex's
// home, then a backward sweep, level by level, that sends each vertex's
// dependency to its predecessors' homes. It is collective; every rank
// passes the same sources. With DistConfig.Impl = Tasks the levels are
// task loops over pgas global arrays (bctasks.go).
func (d *Dist) Centrality(ctx context.Context, sources []int64) ([]float64, error) {
	if d.tk != nil {
		return d.tk.centrality(ctx, sources)
	}
	n := d.hi - d.lo
	st := &bcState{level: make([]int32, n), sigma: make([]float64, n), delta: make([]float64, n), bc: make([]float64, n)}
	for _, s := range sources {
		if s < 0 || s >= d.n {
			return nil, fmt.Errorf("%w: source %d of %d vertices", ErrBadGraph, s, d.n)
		}
		if err := d.brandes(ctx, st, s); err != nil {
			return nil, err
		}
	}
	return st.bc, nil
}

func (d *Dist) brandes(ctx context.Context, st *bcState, s int64) error {
	for i := range st.level {
		st.level[i], st.sigma[i], st.delta[i] = -1, 0, 0
	}
	st.levels = st.levels[:0]
	var frontier []uint32
	if d.Home(s) == d.rank {
		st.level[s-d.lo], st.sigma[s-d.lo] = 0, 1
		frontier = []uint32{uint32(s - d.lo)}
	}
	for depth := int32(0); ; depth++ {
		sums := []int64{int64(len(frontier))}
		if err := collectiveSum(ctx, d, sums); err != nil {
			return err
		}
		if sums[0] == 0 {
			break
		}
		st.levels = append(st.levels, frontier)
		var err error
		if frontier, err = d.countPaths(ctx, st, frontier, depth); err != nil {
			return err
		}
	}
	for depth := len(st.levels) - 1; depth > 0; depth-- {
		if err := d.accumulate(ctx, st, st.levels[depth], int32(depth)); err != nil {
			return err
		}
	}
	for li := range st.bc {
		if int64(li)+d.lo != s {
			st.bc[li] += st.delta[li]
		}
	}
	return nil
}

// countPaths is a top-down level that carries each frontier vertex's
// path count to its neighbours' homes, where vertices of the next level
// sum them.
func (d *Dist) countPaths(ctx context.Context, st *bcState, frontier []uint32, depth int32) ([]uint32, error) {
	var next []uint32
	apply := func(li int64, x float64) {
		switch st.level[li] {
		case -1:
			st.level[li], st.sigma[li] = depth+1, x
			next = append(next, uint32(li))
		case depth + 1:
			st.sigma[li] += x
		}
	}
	err := d.exchange(ctx, func(send func(v int64, x float64)) {
		for _, li := range frontier {
			for _, w := range d.g.Nbr[d.g.Off[li]:d.g.Off[li+1]] {
				send(int64(w), st.sigma[li])
			}
		}
	}, apply)
	return next, err
}

// accumulate sends each vertex w of level depth, to every neighbour's
// home, (1 + delta(w)) / sigma(w); a neighbour one level up adds its own
// sigma times that to its delta.
func (d *Dist) accumulate(ctx context.Context, st *bcState, level []uint32, depth int32) error {
	return d.exchange(ctx, func(send func(v int64, x float64)) {
		for _, li := range level {
			f := (1 + st.delta[li]) / st.sigma[li]
			for _, w := range d.g.Nbr[d.g.Off[li]:d.g.Off[li+1]] {
				send(int64(w), f)
			}
		}
	}, func(li int64, x float64) {
		if st.level[li] == depth-1 {
			st.delta[li] += st.sigma[li] * x
		}
	})
}

// exchange runs produce, which sends (vertex, value) pairs, delivers
// each pair to the vertex's home and calls apply there with the local
// index, after every rank has sent everything. Pairs for this rank are
// applied last too, so that apply sees a level's sends all at once.
func (d *Dist) exchange(ctx context.Context, produce func(send func(v int64, x float64)), apply func(li int64, x float64)) error {
	// Nobody sends before every rank has applied the previous exchange:
	// a pair arriving early would be taken with the previous ones.
	if err := d.c.Barrier(ctx); err != nil {
		return err
	}
	// A value travels as two pairs (vertex, low half), (vertex, high
	// half); an even batch keeps both in one message.
	s := d.newSenderOf(d.idValue, &d.values, d.cfg.Batch+d.cfg.Batch%2)
	produce(func(v int64, x float64) {
		bits := math.Float64bits(x)
		s.send(ctx, d.Home(v), uint32(v), uint32(bits))
		s.send(ctx, d.Home(v), uint32(v), uint32(bits>>32))
	})
	if err := s.close(ctx); err != nil {
		return err
	}
	if err := d.deliver(ctx, &d.values); err != nil {
		return err
	}
	for _, b := range d.values.take() {
		if len(b)%4 != 0 || !halvesMatch(b) {
			return fmt.Errorf("%w: value batch of %d words", ErrBadGraph, len(b))
		}
		for i := 0; i < len(b); i += 4 {
			x := math.Float64frombits(uint64(b[i+1]) | uint64(b[i+3])<<32)
			apply(int64(b[i])-d.lo, x)
		}
	}
	return nil
}

// halvesMatch reports whether each value's two pairs name one vertex.
func halvesMatch(b []uint32) bool {
	for i := 0; i < len(b); i += 4 {
		if b[i] != b[i+2] {
			return false
		}
	}
	return true
}
