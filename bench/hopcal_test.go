package bench

import (
	"context"
	"math"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// The calibration adds its extra to every pair of the team's CPUs, both
// ways, on top of the model's own latency, and leaves the others and the
// model it was given alone.
func TestWithExtraLatency(t *testing.T) {
	m, err := topo.TwoClass(1, 4, 10, 5, 10, 5)
	if err != nil {
		t.Fatal(err)
	}
	m.Latency = &topo.Costs{Mean: [][]float64{{0, 1, 1, 1}, {1, 0, 1, 1}, {1, 1, 0, 1}, {1, 1, 1, 0}}}
	ids := m.IDs()
	c, err := withExtraLatency(m, ids[:3], 7)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		for j := range 4 {
			want := m.Latency.Mean[i][j]
			if i != j && i < 3 && j < 3 {
				want += 7
			}
			if got := c.Latency.Mean[i][j]; got != want {
				t.Errorf("latency[%d][%d] = %v, want %v", i, j, got, want)
			}
		}
	}
	if m.Latency.Mean[0][1] != 1 {
		t.Errorf("the given model changed: %v", m.Latency.Mean[0][1])
	}
	if err := c.Validate(); err != nil {
		t.Errorf("calibrated model invalid: %v", err)
	}
	m.Latency = nil
	if c, err = withExtraLatency(m, ids[:2], 3); err != nil || c.Latency.Mean[1][0] != 3 || c.Latency.Mean[2][0] != 0 {
		t.Errorf("without latency: %v, %v", err, c)
	}
	if _, err := withExtraLatency(m, []int{99}, 1); err == nil {
		t.Error("a CPU outside the model was accepted")
	}
}

// A chain has one child per member but the last, so its barrier is
// 2(n-1) hops, which the calibration divides by.
func TestChainTree(t *testing.T) {
	c := chainTree([]int{4, 2, 7})
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Root != 4 || len(c.Children[4]) != 1 || c.Children[4][0] != 2 || c.Children[2][0] != 7 || len(c.Children[7]) != 0 {
		t.Fatalf("chain %v", c.Children)
	}
}

// A size's chain row predicts on the given model; once it is measured,
// the size's model charges the excess per hop (a chain of 3: 4 hops a
// barrier) to every pair, so a team case's prediction on a flat tree of
// 3 (two hops on any path) rises by two excesses. Two CPUs cannot run
// three pinned members, so the measurement is given.
func TestHopCalibration(t *testing.T) {
	m, err := topo.TwoClass(1, 3, 10, 5, 10, 5)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Model: m, CPUs: m.IDs()}
	sm := &sizeModel{m: m}
	k := hopCase(context.Background(), cfg, 3, sm)
	chainNs, err := k.predict()
	if err != nil || chainNs <= 0 {
		t.Fatalf("chain prediction %v, %v", chainNs, err)
	}
	if err := k.after(chainNs+400, chainNs); err != nil {
		t.Fatal(err)
	}
	st, err := tree.Build(m, tree.Spec{Topology: tree.Sequential, Op: tree.ReleaseBarrier, CPUs: cfg.CPUs, Root: cfg.CPUs[0]})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := predict(m, st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := predict(sm.get(), st)
	if err != nil {
		t.Fatal(err)
	}
	if want := plain + 2*100; math.Abs(got-want) > 1e-6 {
		t.Errorf("sequential predicted %v on the calibrated model, want %v (plain %v)", got, want, plain)
	}
	if err := k.after(chainNs-50, chainNs); err != nil || sm.get().Latency.Mean[0][1] != 0 {
		t.Errorf("a chain faster than predicted must add nothing: %v, %v", err, sm.get().Latency.Mean[0][1])
	}
}
