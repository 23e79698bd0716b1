package graph

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// TestTasksMatchSerial: the Tasks implementation, on 1 to 3 ranks and
// in both modes, gives every vertex the serial search's level for
// several roots in a row on one Dist (each search resets the global
// parent array), and every search validates.
func TestTasksMatchSerial(t *testing.T) {
	const scale = 9
	k, _ := Graph500(scale, 11)
	edges := shares(k, 1)
	whole := FromEdges(0, k.Vertices(), edges)
	roots := []int64{edges[0][0], edges[1][1], edges[7][0]}
	want := make([][]int32, len(roots))
	for i, root := range roots {
		_, want[i] = SerialBFS(&whole, root)
	}
	for _, ranks := range []int{1, 2, 3} {
		for _, mode := range []Mode{TopDown, Hybrid} {
			t.Run(fmt.Sprintf("ranks=%d/mode=%d", ranks, mode), func(t *testing.T) {
				onRanks(t, ranks, k.Vertices(), DistConfig{Threads: 2, Impl: Tasks}, func(ctx context.Context, d *Dist) error {
					if err := d.Build(ctx, k); err != nil {
						return err
					}
					for i, root := range roots {
						if err := searchMatches(ctx, d, root, mode, want[i]); err != nil {
							return fmt.Errorf("root %d: %w", root, err)
						}
					}
					return nil
				})
			})
		}
	}
}

// TestTasksLargeLevels: top-down levels of thousands of vertices on 2
// ranks, whose chunks of frontier send full visit tasks (maxVisitPairs
// pairs) as well as partial ones, match the serial search.
func TestTasksLargeLevels(t *testing.T) {
	k, _ := Graph500(12, 4)
	edges := shares(k, 1)
	whole := FromEdges(0, k.Vertices(), edges)
	root := edges[0][0]
	_, want := SerialBFS(&whole, root)
	onRanks(t, 2, k.Vertices(), DistConfig{Impl: Tasks}, func(ctx context.Context, d *Dist) error {
		if err := d.Build(ctx, k); err != nil {
			return err
		}
		return searchMatches(ctx, d, root, TopDown, want)
	})
}

// searchMatches searches from root and checks the levels and the five
// rules.
func searchMatches(ctx context.Context, d *Dist, root int64, mode Mode, want []int32) error {
	if _, err := d.BFS(ctx, root, mode); err != nil {
		return err
	}
	for li, l := range d.level {
		if l != want[d.lo+int64(li)] {
			return fmt.Errorf("vertex %d at level %d, serial %d", d.lo+int64(li), l, want[d.lo+int64(li)])
		}
	}
	_, err := d.validate(ctx, root)
	return err
}

// TestTasksRunLikeLoops: the benchmark driver with either
// implementation on 2 ranks validates every search, and both count the
// same edges per search (the component of each root).
func TestTasksRunLikeLoops(t *testing.T) {
	nedges := map[Impl][]float64{}
	for _, impl := range []Impl{Loops, Tasks} {
		var got []float64
		onRanks(t, 2, 1<<8, DistConfig{Impl: impl}, func(ctx context.Context, d *Dist) error {
			res, err := Run(ctx, d, BenchConfig{Scale: 8, EdgeFactor: 16, Seed: 3, NBFS: 6, Root: -1, Mode: Hybrid})
			if err != nil {
				return err
			}
			if !res.Validated || len(res.NEdges) != 6 {
				return fmt.Errorf("%v: %+v", impl, res)
			}
			if d.rank == 0 {
				got = res.NEdges
			}
			return nil
		})
		nedges[impl] = got
	}
	if !slices.Equal(nedges[Loops], nedges[Tasks]) {
		t.Errorf("edges per search: loops %v, tasks %v", nedges[Loops], nedges[Tasks])
	}
}

// TestTasksParentsAreGlobal: after a search on 3 ranks, every rank
// reads every vertex's parent from the global array by delegate (most
// of them at other ranks) and finds what the validated search left.
func TestTasksParentsAreGlobal(t *testing.T) {
	k, _ := Graph500(8, 5)
	root, _ := k.Edge(0)
	onRanks(t, 3, k.Vertices(), DistConfig{Impl: Tasks}, func(ctx context.Context, d *Dist) error {
		if err := d.Build(ctx, k); err != nil {
			return err
		}
		if _, err := d.BFS(ctx, root, Hybrid); err != nil {
			return err
		}
		parent, _, err := d.gather(ctx)
		if err != nil {
			return err
		}
		remote := 0
		for v := range d.n {
			p := d.tk.parent.At(int(v))
			got, err := p.Read(ctx)
			if err != nil {
				return err
			}
			if got != parent[v] {
				return fmt.Errorf("parent of %d: %d in the global array, %d gathered", v, got, parent[v])
			}
			if p.Addr().Rank != d.rank {
				remote++
			}
		}
		if remote == 0 {
			return fmt.Errorf("no parent of %d vertices is homed on another rank", d.n)
		}
		return d.c.Barrier(ctx) // no rank stops answering delegates before all have read
	})
}

// TestTasksEmptyRanks: a graph of 64 vertices on 3 ranks leaves two
// ranks without a vertex (homes are whole 64-vertex chunks), and so
// without a part of the parent array; the search still matches the
// serial one and validates.
func TestTasksEmptyRanks(t *testing.T) {
	k, _ := Graph500(6, 2)
	edges := shares(k, 1)
	whole := FromEdges(0, k.Vertices(), edges)
	root := edges[0][0]
	_, want := SerialBFS(&whole, root)
	onRanks(t, 3, k.Vertices(), DistConfig{Impl: Tasks}, func(ctx context.Context, d *Dist) error {
		if err := d.Build(ctx, k); err != nil {
			return err
		}
		return searchMatches(ctx, d, root, Hybrid, want)
	})
}

// TestTasksVisitChecksArgs: a visit task with malformed args, as
// another rank could send, is an error, not a panic.
func TestTasksVisitChecksArgs(t *testing.T) {
	onRanks(t, 1, 1<<6, DistConfig{Impl: Tasks}, func(ctx context.Context, d *Dist) error {
		for name, args := range map[string][]byte{
			"short":         {1, 0, 0},
			"ragged":        {1, 0, 0, 0, 2, 0, 0, 0, 3},
			"half a pair":   {1, 0, 0, 0, 2, 0, 0, 0},
			"level 0":       {0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0},
			"parent 64":     {1, 0, 0, 0, 2, 0, 0, 0, 64, 0, 0, 0},
			"target 1000":   {1, 0, 0, 0, 0xe8, 3, 0, 0, 2, 0, 0, 0},
			"target 2^32-1": {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0},
		} {
			if err := d.tk.visitTask(ctx, nil, args); !errors.Is(err, ErrBadGraph) {
				return fmt.Errorf("visit %s: %v, want ErrBadGraph", name, err)
			}
		}
		return nil
	})
}

func TestImplValidate(t *testing.T) {
	for _, impl := range []Impl{-1, Tasks + 1} {
		if err := (DistConfig{Impl: impl}).Validate(); !errors.Is(err, ErrBadGraph) {
			t.Errorf("Impl %d: %v, want ErrBadGraph", impl, err)
		}
	}
	if got := fmt.Sprint(Loops, Tasks); got != "loops tasks" {
		t.Errorf("names %q", got)
	}
}
