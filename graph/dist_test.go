package graph

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/internal/jobtest"
)

// onRanks runs f as every rank of an n-rank job over TCP in this
// process, each with a Dist of the given vertices.
func onRanks(t *testing.T, n int, vertices int64, cfg DistConfig, f func(ctx context.Context, d *Dist) error) {
	t.Helper()
	ws, err := commtest.TCPWorlds(n, "graph-test", comm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := jobtest.OnWorlds(ws, func(w *comm.World) error { return rankRun(ctx, w, vertices, cfg, f) }); err != nil {
		t.Fatal(err)
	}
}

func rankRun(ctx context.Context, w *comm.World, vertices int64, cfg DistConfig, f func(ctx context.Context, d *Dist) error) error {
	c, err := collective.New(ctx, w, collective.Config{})
	if err != nil {
		return err
	}
	defer c.Close()
	d, err := NewDist(ctx, w, c, vertices, cfg)
	if err != nil {
		return err
	}
	if err := f(ctx, d); err != nil {
		d.Close(ctx)
		return fmt.Errorf("rank %d: %w", w.Rank(), err)
	}
	return d.Close(ctx)
}

// TestDistMatchesSerial: on 1 to 3 ranks, in both modes, with one
// update per message and with batches, the distributed search gives
// every vertex the serial search's level, and validates.
func TestDistMatchesSerial(t *testing.T) {
	const scale = 9
	k, _ := Graph500(scale, 11)
	edges := shares(k, 1)
	whole := FromEdges(0, k.Vertices(), edges)
	root := edges[0][0]
	_, want := SerialBFS(&whole, root)
	for _, ranks := range []int{1, 2, 3} {
		for _, mode := range []Mode{TopDown, Hybrid} {
			for _, batch := range []int{1, 0} {
				t.Run(fmt.Sprintf("ranks=%d/mode=%d/batch=%d", ranks, mode, batch), func(t *testing.T) {
					onRanks(t, ranks, k.Vertices(), DistConfig{Batch: batch, Threads: 2}, func(ctx context.Context, d *Dist) error {
						if err := d.Build(ctx, k); err != nil {
							return err
						}
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
					})
				})
			}
		}
	}
}

// TestRunValidates runs the benchmark driver on 2 ranks and checks its
// counts: a few searches, every one validated, edge counts that cannot
// exceed the graph's.
func TestRunValidates(t *testing.T) {
	results := make([]*Result, 2)
	var mu sync.Mutex
	onRanks(t, 2, 1<<8, DistConfig{}, func(ctx context.Context, d *Dist) error {
		res, err := Run(ctx, d, BenchConfig{Scale: 8, EdgeFactor: 16, Seed: 2, NBFS: 4, Root: -1, Mode: Hybrid})
		mu.Lock()
		results[d.rank] = res
		mu.Unlock()
		return err
	})
	for r, res := range results {
		if !res.Validated || len(res.TEPS) != 4 || len(res.Roots) != 4 {
			t.Fatalf("rank %d: %+v", r, res)
		}
		for i, e := range res.NEdges {
			if e <= 0 || e > 16<<8 || res.TEPS[i] <= 0 || e != results[0].NEdges[i] {
				t.Errorf("rank %d search %d: %v edges, %v TEPS", r, i, e, res.TEPS[i])
			}
		}
	}
}

func TestRunRejectsIsolatedRoot(t *testing.T) {
	k, _ := Graph500(6, 1)
	deg := make([]int, k.Vertices())
	for _, e := range shares(k, 1) {
		if e[0] != e[1] {
			deg[e[0]]++
			deg[e[1]]++
		}
	}
	root := int64(-1)
	for v, n := range deg {
		if n == 0 {
			root = int64(v)
			break
		}
	}
	if root < 0 {
		t.Skip("no isolated vertex at this seed")
	}
	onRanks(t, 1, k.Vertices(), DistConfig{}, func(ctx context.Context, d *Dist) error {
		_, err := Run(ctx, d, BenchConfig{Scale: 6, EdgeFactor: 16, Seed: 1, NBFS: 1, Root: root, Mode: Hybrid})
		if !errors.Is(err, ErrNoRoot) {
			return fmt.Errorf("root %d of degree 0: %v, want ErrNoRoot", root, err)
		}
		return nil
	})
}

// TestBrokenSearchFailsEverywhere: one rank corrupts a level; every rank
// reports the levels rule.
func TestBrokenSearchFailsEverywhere(t *testing.T) {
	k, _ := Graph500(8, 4)
	root, _ := k.Edge(0)
	onRanks(t, 2, k.Vertices(), DistConfig{}, func(ctx context.Context, d *Dist) error {
		if err := d.Build(ctx, k); err != nil {
			return err
		}
		if _, err := d.BFS(ctx, root, Hybrid); err != nil {
			return err
		}
		if d.rank == 1 {
			for li := range d.level {
				if d.level[li] > 0 {
					d.level[li] += 5
					break
				}
			}
		}
		_, err := d.validate(ctx, root)
		var v *Violation
		if !errors.As(err, &v) || v.Rule != RuleLevels {
			return fmt.Errorf("corrupted level: %v, want a levels violation", err)
		}
		return nil
	})
}
