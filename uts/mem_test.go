package uts

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/internal/jobtest"
)

// smallTrees are one tree of each type, a few thousand nodes each.
func smallTrees() map[string]Params {
	geo := T1()
	geo.Depth, geo.Seed = 6, 4
	bin := T3()
	bin.B0, bin.Q, bin.M, bin.Seed = 100, 0.12, 8, 0
	hyb := Default()
	hyb.Type, hyb.Depth, hyb.B0, hyb.Q, hyb.M, hyb.Seed = Hybrid, 8, 3, 0.2, 4, 0
	exp := Default()
	exp.Shape, exp.Depth, exp.B0, exp.Seed = ExpDec, 7, 4, 1
	cyc := Default()
	cyc.Shape, cyc.Depth, cyc.B0, cyc.Seed = Cyclic, 3, 4, 0
	bal := Default()
	bal.Type, bal.Depth, bal.B0 = Balanced, 5, 4
	return map[string]Params{"geometric": geo, "binomial": bin, "hybrid": hyb, "expdec": exp, "cyclic": cyc, "balanced": bal}
}

func onRanks(t *testing.T, n int, p Params, cfg MemConfig, f func(ctx context.Context, m *Mem) error) {
	t.Helper()
	ws, err := commtest.TCPWorlds(n, "uts-test", comm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := jobtest.OnWorlds(ws, func(w *comm.World) error { return rank(ctx, w, p, cfg, f) }); err != nil {
		t.Fatal(err)
	}
}

func rank(ctx context.Context, w *comm.World, p Params, cfg MemConfig, f func(ctx context.Context, m *Mem) error) error {
	c, err := collective.New(ctx, w, collective.Config{})
	if err != nil {
		return err
	}
	defer c.Close()
	m, err := NewMem(ctx, w, c, p, cfg)
	if err != nil {
		return err
	}
	if err := f(ctx, m); err != nil {
		m.Close(ctx)
		return fmt.Errorf("rank %d: %w", w.Rank(), err)
	}
	return m.Close(ctx)
}

// TestMemMatchesSearch builds and traverses each small tree on 1 to 3
// ranks, twice, and compares the counts with the sequential search's;
// the ranks' stores must hold every node once.
func TestMemMatchesSearch(t *testing.T) {
	for name, p := range smallTrees() {
		want := Search(p)
		if want.Nodes < 10 {
			t.Fatalf("%s: only %d nodes; pick a bigger test tree", name, want.Nodes)
		}
		for _, ranks := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/ranks=%d", name, ranks), func(t *testing.T) {
				var mu sync.Mutex
				var stored, visited int64
				onRanks(t, ranks, p, MemConfig{Budget: 8}, func(ctx context.Context, m *Mem) error {
					if err := m.Build(ctx); err != nil {
						return err
					}
					for range 2 {
						got, err := m.Traverse(ctx)
						if err != nil {
							return err
						}
						if got != want {
							return fmt.Errorf("traversal %+v, sequential %+v", got, want)
						}
					}
					mu.Lock()
					stored += m.Stored()
					visited += m.Visited()
					mu.Unlock()
					return nil
				})
				if stored != want.Nodes || visited != want.Nodes {
					t.Errorf("ranks store %d nodes and visited %d, want %d", stored, visited, want.Nodes)
				}
			})
		}
	}
}
