package survey

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/plexus-hpc/plexus/tree"
)

var dataDir = filepath.Join("..", "..", "data")

func TestMachinesLoadEverything(t *testing.T) {
	ms, err := Machines(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, m := range ms {
		kinds[filepath.Dir(m.Name)]++
		if !m.Model.HasCosts() {
			t.Errorf("%s has no costs", m.Name)
		}
	}
	// One Linux-era machine, eleven complete Barrelfish-era matrix pairs,
	// seventeen hwloc topologies.
	if kinds["smelt"] != 1 || kinds["barrelfish"] != 11 || kinds["hwloc"] != 17 {
		t.Errorf("loaded %v", kinds)
	}
}

func TestSizes(t *testing.T) {
	if got := Sizes(5, 12); !slices.Equal(got, []int{2, 3, 4, 5}) {
		t.Errorf("Sizes(5) = %v", got)
	}
	got := Sizes(384, 12)
	if len(got) != 12 || got[0] != 2 || got[11] != 384 || !slices.IsSorted(got) {
		t.Errorf("Sizes(384) = %v", got)
	}
}

// Best is never slower than any static or adaptive tree, on every machine
// up to 32 CPUs for every round-robin group size (a spread of sizes on
// larger machines; -short keeps only the smallest machines). The full
// survey over all machines is `plexus tree survey`, recorded in
// docs/trees.md.
func TestBestNeverLoses(t *testing.T) {
	ms, err := Machines(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	limit, spread := 64, 4
	if testing.Short() {
		limit, spread = 20, 3
	}
	var all []Point
	for _, m := range ms {
		n := m.Model.N()
		if n > limit {
			continue
		}
		sizes := Sizes(n, spread)
		if n > 32 {
			sizes = []int{2, n / 2, n}
		}
		points, err := Survey(m, sizes, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range points {
			if p.Violation() {
				t.Errorf("%s %v size %d: best %.1f ns > %v %.1f ns", p.Machine, p.Op, p.Size, p.Best, p.Closest,
					min(p.BestStatic, p.Adaptive))
			}
		}
		all = append(all, points...)
	}
	s := Summarize(all)
	t.Logf("%d points: best/static mean %.3f worst %.3f; best/adaptive mean %.3f worst %.3f",
		s.Points, s.MeanVsStatic, s.WorstVsStatic, s.MeanVsAdaptive, s.WorstVsAdaptive)
	if s.Points == 0 || s.Violations != 0 {
		t.Errorf("summary %+v", s)
	}
}

func TestSummarize(t *testing.T) {
	pts := []Point{
		{Op: tree.Bcast, Best: 90, BestStatic: 100, Adaptive: 90},
		{Op: tree.Reduce, Best: 80, BestStatic: 80, Adaptive: 100},
		{Op: tree.Barrier, Best: 110, BestStatic: 100, Adaptive: 120},
	}
	s := Summarize(pts)
	if s.Violations != 1 || s.WorstVsStatic != 1.1 || s.WorstVsAdaptive != 1 {
		t.Errorf("%+v", s)
	}
	if want := (0.9 + 1 + 1.1) / 3; s.MeanVsStatic < want-1e-12 || s.MeanVsStatic > want+1e-12 {
		t.Errorf("mean vs static %v, want %v", s.MeanVsStatic, want)
	}
}

// On random 8-CPU groups of every machine, Best's broadcast is within 3% of
// the exact optimum (Smelt's heuristic was 9% off). -short checks a few
// machines only.
func TestBestNearExact(t *testing.T) {
	if testing.Short() {
		t.Skip("exact search on every machine takes a while")
	}
	ms, err := Machines(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	worst, sum, n := 0.0, 0.0, 0
	for _, m := range ms {
		gaps, err := ExactGaps(m, 8, 5, 42)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gaps {
			r := g.Ratio()
			if r < 1-1e-9 {
				t.Errorf("%s %v: best %.1f below the exact optimum %.1f: exact search is wrong", g.Machine, g.CPUs, g.Best, g.Exact)
			}
			if r > 1.03 {
				t.Errorf("%s %v: best %.1f is %.1f%% above the optimum %.1f", g.Machine, g.CPUs, g.Best, 100*(r-1), g.Exact)
			}
			worst, sum, n = max(worst, r), sum+r, n+1
		}
	}
	t.Logf("%d groups: best/exact mean %.4f worst %.4f", n, sum/float64(n), worst)
}
