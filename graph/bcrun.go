package graph

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"
)

// Score is a vertex's betweenness.
type Score struct {
	Vertex int64
	BC     float64
}

// Top returns the k highest scores, ties by vertex, highest first;
// none when k is not positive.
func Top(scores []Score, k int) []Score {
	if k < 1 {
		return nil
	}
	s := slices.Clone(scores)
	slices.SortFunc(s, func(a, b Score) int {
		if c := cmp.Compare(b.BC, a.BC); c != 0 {
			return c
		}
		return cmp.Compare(a.Vertex, b.Vertex)
	})
	return s[:min(k, len(s))]
}

// BCConfig is one betweenness run on a built Dist.
type BCConfig struct {
	// K is the sampled sources; 0 takes every vertex (exact scores).
	K    int
	Seed uint64
	Now  func() time.Time
}

// BCResult is what every rank learns of a run.
type BCResult struct {
	Sources []int64
	Seconds float64
	// TEPS is the input edges times the sources over the time, as
	// SSCA#2 reports betweenness.
	TEPS float64
	Top  []Score
}

// RunBC computes betweenness from cfg's sources on d's graph of the
// given input edges and returns the time and the ten most central
// vertices. It is collective.
func RunBC(ctx context.Context, d *Dist, edges int64, cfg BCConfig) (*BCResult, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	bits, err := d.eligible(ctx)
	if err != nil {
		return nil, err
	}
	res := &BCResult{}
	if cfg.K == 0 {
		for v := range d.n {
			res.Sources = append(res.Sources, v)
		}
	} else {
		res.Sources = SearchKeys(d.n, func(v int64) bool { return bits[v>>6]&(1<<(v&63)) != 0 }, cfg.K, cfg.Seed)
	}
	if err := d.c.Barrier(ctx); err != nil {
		return nil, err
	}
	t0 := cfg.Now()
	bc, err := d.Centrality(ctx, res.Sources)
	if err != nil {
		return nil, err
	}
	if err := d.c.Barrier(ctx); err != nil {
		return nil, err
	}
	res.Seconds = cfg.Now().Sub(t0).Seconds()
	res.TEPS = float64(edges) * float64(len(res.Sources)) / res.Seconds
	res.Top, err = d.gatherTop(ctx, bc, 10)
	return res, err
}

// gatherTop merges every rank's k best local scores.
func (d *Dist) gatherTop(ctx context.Context, bc []float64, k int) ([]Score, error) {
	local := make([]Score, len(bc))
	for li, x := range bc {
		local[li] = Score{Vertex: d.lo + int64(li), BC: x}
	}
	mine := make([]byte, 16*k)
	for i := range k {
		binary.LittleEndian.PutUint64(mine[16*i:], uint64(math.MaxUint64)) // no vertex
	}
	for i, s := range Top(local, k) {
		binary.LittleEndian.PutUint64(mine[16*i:], uint64(s.Vertex))
		binary.LittleEndian.PutUint64(mine[16*i+8:], math.Float64bits(s.BC))
	}
	all := make([]byte, d.ranks*len(mine))
	if err := d.c.Allgather(ctx, mine, all); err != nil {
		return nil, fmt.Errorf("graph: gather top scores: %w", err)
	}
	var merged []Score
	for i := 0; i < len(all); i += 16 {
		if v := binary.LittleEndian.Uint64(all[i:]); v != math.MaxUint64 {
			merged = append(merged, Score{Vertex: int64(v), BC: math.Float64frombits(binary.LittleEndian.Uint64(all[i+8:]))})
		}
	}
	return Top(merged, k), nil
}
