package graph

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
)

// TestBrandesPath: on the path 0-1-2-3 from every source, the inner
// vertices lie on 4 ordered pairs' shortest paths each.
func TestBrandesPath(t *testing.T) {
	g := FromEdges(0, 4, [][2]int64{{0, 1}, {1, 2}, {2, 3}})
	bc := SerialBrandes(&g, []int64{0, 1, 2, 3})
	want := []float64{0, 4, 4, 0}
	for v := range want {
		if bc[v] != want[v] {
			t.Errorf("vertex %d: %v, want %v", v, bc[v], want[v])
		}
	}
}

// TestCentralityMatchesSerial: on Kronecker and R-MAT graphs, exact
// (every source) and sampled, the distributed scores of both
// implementations equal the serial Brandes within 1e-9 relative on 1 to
// 3 ranks.
func TestCentralityMatchesSerial(t *testing.T) {
	kron, _ := Graph500(7, 3)
	rmat, _ := NewKronecker(7, 8, 0.55, 0.1, 0.1, 3)
	for _, tc := range []struct {
		name string
		k    *Kronecker
		all  bool
	}{{"kronecker/exact", kron, true}, {"rmat/exact", rmat, true}, {"kronecker/k=8", kron, false}} {
		whole := FromEdges(0, tc.k.Vertices(), shares(tc.k, 1))
		sources := SearchKeys(tc.k.Vertices(), func(v int64) bool { return whole.Degree(v) > 0 }, 8, 1)
		if tc.all {
			sources = sources[:0]
			for v := range tc.k.Vertices() {
				sources = append(sources, v)
			}
		}
		want := SerialBrandes(&whole, sources)
		for _, impl := range []Impl{Loops, Tasks} {
			for _, ranks := range []int{1, 2, 3} {
				t.Run(fmt.Sprintf("%s/impl=%v/ranks=%d", tc.name, impl, ranks), func(t *testing.T) {
					centralityMatches(t, ranks, tc.k, DistConfig{Impl: impl}, sources, want)
				})
			}
		}
	}
}

// centralityMatches computes the centrality from sources on ranks
// ranks and checks that they hold every vertex's score once, each
// within 1e-9 relative of want's.
func centralityMatches(t *testing.T, ranks int, k *Kronecker, cfg DistConfig, sources []int64, want []float64) {
	t.Helper()
	var mu sync.Mutex
	seen := 0
	onRanks(t, ranks, k.Vertices(), cfg, func(ctx context.Context, d *Dist) error {
		if err := d.Build(ctx, k); err != nil {
			return err
		}
		bc, err := d.Centrality(ctx, sources)
		if err != nil {
			return err
		}
		if err := scoresMatch(bc, want[d.lo:d.lo+int64(len(bc))]); err != nil {
			return fmt.Errorf("vertices from %d: %w", d.lo, err)
		}
		mu.Lock()
		seen += len(bc)
		mu.Unlock()
		return nil
	})
	if int64(seen) != k.Vertices() {
		t.Errorf("ranks hold %d scores, want %d", seen, k.Vertices())
	}
}

// scoresMatch reports the first score of got more than 1e-9 relative
// from want's.
func scoresMatch(got, want []float64) error {
	for i, x := range got {
		if w := want[i]; math.Abs(x-w) > 1e-9*math.Max(1, math.Abs(w)) {
			return fmt.Errorf("score %d: %v, serial %v", i, x, w)
		}
	}
	return nil
}

func TestTop(t *testing.T) {
	got := Top([]Score{{3, 1}, {1, 5}, {2, 5}, {0, 0.5}}, 3)
	want := []Score{{1, 5}, {2, 5}, {3, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
	if len(Top(nil, 10)) != 0 {
		t.Error("top of nothing is not empty")
	}
}

// TestRunBCTop: the ten best scores gathered from 2 ranks are the
// serial Brandes's ten best.
func TestRunBCTop(t *testing.T) {
	k, _ := NewKronecker(7, 8, 0.55, 0.1, 0.1, 5)
	whole := FromEdges(0, k.Vertices(), shares(k, 1))
	onRanks(t, 2, k.Vertices(), DistConfig{}, func(ctx context.Context, d *Dist) error {
		if err := d.Build(ctx, k); err != nil {
			return err
		}
		res, err := RunBC(ctx, d, k.Edges(), BCConfig{K: 16, Seed: 2})
		if err != nil {
			return err
		}
		serial := SerialBrandes(&whole, res.Sources)
		all := make([]Score, len(serial))
		for v, x := range serial {
			all[v] = Score{int64(v), x}
		}
		want := Top(all, 10)
		if len(res.Sources) != 16 || len(res.Top) != 10 || res.TEPS <= 0 {
			return fmt.Errorf("%d sources, top %v, %v TEPS", len(res.Sources), res.Top, res.TEPS)
		}
		for i := range want {
			if res.Top[i].Vertex != want[i].Vertex || math.Abs(res.Top[i].BC-want[i].BC) > 1e-9*want[i].BC {
				return fmt.Errorf("top %v, serial %v", res.Top, want)
			}
		}
		return nil
	})
}
