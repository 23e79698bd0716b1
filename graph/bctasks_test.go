package graph

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"
)

// TestTasksCentralityLargeLevels: on 2 ranks a SCALE 12 graph's levels
// hold thousands of vertices, so that chunks send full visit tasks
// (341 entries) as well as partial ones, in both phases; the scores
// still equal the serial Brandes's.
func TestTasksCentralityLargeLevels(t *testing.T) {
	k, _ := Graph500(12, 4)
	whole := FromEdges(0, k.Vertices(), shares(k, 1))
	sources := SearchKeys(k.Vertices(), func(v int64) bool { return whole.Degree(v) > 0 }, 3, 9)
	centralityMatches(t, 2, k, DistConfig{Impl: Tasks}, sources, SerialBrandes(&whole, sources))
}

// TestTasksCentralityEmptyRanks: 64 vertices on 3 ranks leave two ranks
// without a vertex, and so without a part of the arrays; every rank
// still runs every level's loop, and the scores are exact.
func TestTasksCentralityEmptyRanks(t *testing.T) {
	k, _ := Graph500(6, 2)
	whole := FromEdges(0, k.Vertices(), shares(k, 1))
	sources := make([]int64, k.Vertices())
	for v := range sources {
		sources[v] = int64(v)
	}
	centralityMatches(t, 3, k, DistConfig{Impl: Tasks}, sources, SerialBrandes(&whole, sources))
}

// TestTasksSearchAndCentrality: searches and betweenness share a Tasks
// Dist's heap, pool and list of reached vertices; on 2 ranks a search
// after a centrality, and one more centrality after it, give the serial
// results.
func TestTasksSearchAndCentrality(t *testing.T) {
	k, _ := Graph500(9, 6)
	whole := FromEdges(0, k.Vertices(), shares(k, 1))
	sources := SearchKeys(k.Vertices(), func(v int64) bool { return whole.Degree(v) > 0 }, 4, 2)
	want := SerialBrandes(&whole, sources)
	_, levels := SerialBFS(&whole, sources[0])
	onRanks(t, 2, k.Vertices(), DistConfig{Impl: Tasks}, func(ctx context.Context, d *Dist) error {
		if err := d.Build(ctx, k); err != nil {
			return err
		}
		for round := range 2 {
			bc, err := d.Centrality(ctx, sources)
			if err != nil {
				return err
			}
			if err := scoresMatch(bc, want[d.lo:d.hi]); err != nil {
				return fmt.Errorf("round %d: %w", round, err)
			}
			if err := searchMatches(ctx, d, sources[0], Hybrid, levels); err != nil {
				return fmt.Errorf("round %d: search: %w", round, err)
			}
		}
		return nil
	})
}

// TestTasksCentralityRejectsSource: a source outside the graph is
// ErrBadGraph on every rank, before any level runs.
func TestTasksCentralityRejectsSource(t *testing.T) {
	onRanks(t, 2, 1<<7, DistConfig{Impl: Tasks}, func(ctx context.Context, d *Dist) error {
		k, _ := Graph500(7, 1)
		if err := d.Build(ctx, k); err != nil {
			return err
		}
		for _, src := range []int64{-1, 1 << 7} {
			if _, err := d.Centrality(ctx, []int64{0, src}); !errors.Is(err, ErrBadGraph) {
				return fmt.Errorf("source %d: %v, want ErrBadGraph", src, err)
			}
		}
		return nil
	})
}

// TestBCVisitsCheckArgs: path and dependency visits with malformed
// args, as another rank could send, are errors, not panics.
func TestBCVisitsCheckArgs(t *testing.T) {
	entry := func(level, v uint32, x float64) []byte {
		b := binary.LittleEndian.AppendUint32(nil, level)
		b = binary.LittleEndian.AppendUint32(b, v)
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	onRanks(t, 1, 1<<6, DistConfig{Impl: Tasks}, func(ctx context.Context, d *Dist) error {
		if _, err := d.Centrality(ctx, nil); err != nil { // allocates the arrays
			return err
		}
		for name, args := range map[string][]byte{
			"short":         {1, 0, 0},
			"ragged":        entry(1, 2, 1)[:15],
			"level 0":       entry(0, 2, 1),
			"target 64":     entry(1, 64, 1),
			"target 2^32-1": entry(1, math.MaxUint32, 1),
		} {
			if err := d.tk.pathVisitTask(ctx, nil, args); !errors.Is(err, ErrBadGraph) {
				return fmt.Errorf("path visit %s: %v, want ErrBadGraph", name, err)
			}
			if err := d.tk.depVisitTask(ctx, nil, args); !errors.Is(err, ErrBadGraph) {
				return fmt.Errorf("dependency visit %s: %v, want ErrBadGraph", name, err)
			}
		}
		return nil
	})
}
