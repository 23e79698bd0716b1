package tree

import (
	"errors"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/topo"
)

// randModel is an n-CPU model with independent random costs (no NUMA
// structure at all, the hardest case for heuristics and bounds alike).
func randModel(rng *rand.Rand, n int) *topo.Model {
	m := &topo.Model{Name: "random", Nodes: []topo.Node{{OSIndex: 0}}}
	m.Send, m.Recv = topo.NewCosts(n, false), topo.NewCosts(n, false)
	for i := range n {
		m.CPUs = append(m.CPUs, topo.CPU{ID: 10 + i, Core: i, L2: i, L3: 0})
		for j := range n {
			if i != j {
				m.Send.Mean[i][j] = 20 + 80*rng.Float64()
				m.Recv.Mean[i][j] = 50 + 250*rng.Float64()
			}
		}
	}
	return m
}

// bruteForce returns the lowest broadcast latency over every tree rooted
// at root and every send order of every node's children. It also checks
// that Jackson's rule (reorder) reaches the best order of every shape.
func bruteForce(t *testing.T, g *group, root int) float64 {
	n := g.n()
	parent := make([]int, n)
	parent[root] = -1
	x := newSim(g)
	bestAll := math.Inf(1)
	var pick func(v int)
	pick = func(v int) {
		if v == n {
			s, ok := shapeOf(parent, root)
			if !ok {
				return
			}
			bestOrder := bestOrderOf(x, s, 0)
			reorder(g, s)
			if j, _ := x.bcast(s); j > bestOrder*(1+1e-12) {
				t.Fatalf("Jackson order %.3f, best order of the same shape %.3f", j, bestOrder)
			}
			bestAll = min(bestAll, bestOrder)
			return
		}
		if v == root {
			pick(v + 1)
			return
		}
		for p := range n {
			if p != v {
				parent[v] = p
				pick(v + 1)
			}
		}
	}
	pick(0)
	return bestAll
}

// shapeOf builds the shape of a parent array; false when it has a cycle.
func shapeOf(parent []int, root int) (*shape, bool) {
	s := newShape(len(parent), root)
	for v, p := range parent {
		if v != root {
			s.add(p, v)
		}
	}
	return s, len(preorder(s, nil)) == len(parent)
}

// bestOrderOf tries every permutation of the children of nodes u.. and
// returns the lowest broadcast latency.
func bestOrderOf(x *sim, s *shape, u int) float64 {
	if u == len(s.kids) {
		lat, _ := x.bcast(s)
		return lat
	}
	best := math.Inf(1)
	permute(s.kids[u], 0, func([]int) { best = min(best, bestOrderOf(x, s, u+1)) })
	return best
}

func TestExactMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	sizes := []int{2, 3, 4, 5, 5, 5, 6, 6}
	if !testing.Short() {
		sizes = append(sizes, 6, 6, 6)
	}
	for i, n := range sizes {
		m := randModel(rng, n)
		root := m.CPUs[rng.Intn(n)].ID
		tr, lat, err := Exact(m, nil, root)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := newGroup(m, nil)
		r, _ := g.local(root)
		want := bruteForce(t, g, r)
		sim, err := Simulate(m, tr, Bcast)
		if err != nil || tr.Root != root {
			t.Fatalf("case %d: tree %v, root %d: %v", i, tr, tr.Root, err)
		}
		if !within(lat, want, 1e-9) || !within(sim.Latency, lat, 1e-12) {
			t.Errorf("case %d (%d CPUs): exact %.6f (simulated %.6f), brute force %.6f", i, n, lat, sim.Latency, want)
		}
	}
}

func TestExactNoWorseThanHeuristics(t *testing.T) {
	m := model2x10(t)
	cpus := []int{0, 10, 1, 11, 2, 12, 3, 13}
	_, lat, err := Exact(m, cpus, AutoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, top := range Topologies() {
		tr, err := Build(m, Spec{Topology: top, CPUs: cpus, Root: AutoRoot})
		if err != nil {
			t.Fatal(err)
		}
		if r, _ := Simulate(m, tr, Bcast); r.Latency < lat*(1-1e-9) {
			t.Errorf("%v broadcast %.1f beats exact %.1f", top, r.Latency, lat)
		}
	}
}

func TestExactErrors(t *testing.T) {
	m := model2x10(t)
	if _, _, err := Exact(m, nil, AutoRoot); !errors.Is(err, ErrGroup) {
		t.Errorf("20 CPUs: err %v, want ErrGroup", err)
	}
	if _, _, err := Exact(m, []int{1, 2, 3}, 4); !errors.Is(err, ErrGroup) {
		t.Errorf("root outside group: err %v, want ErrGroup", err)
	}
	if _, _, err := Exact(m, []int{1, 1}, 1); !errors.Is(err, ErrGroup) {
		t.Errorf("duplicate cpu: err %v, want ErrGroup", err)
	}
	tr, lat, err := Exact(m, []int{5}, 5)
	if err != nil || lat != 0 || tr.Root != 5 {
		t.Errorf("single cpu: %v, %v, %v", tr, lat, err)
	}
}

// Smelt needed 5 hours of brute force for 8 cores; 9 random-cost CPUs, the
// worst case for the bound, must stay within seconds.
func TestExactNine(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	rng := rand.New(rand.NewSource(9))
	m := randModel(rng, 9)
	start := time.Now()
	_, lat, err := Exact(m, nil, AutoRoot)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("9 random CPUs: optimum %.1f in %v", lat, time.Since(start))
}

// BenchmarkExact times random costs, which prune worse than machine-like
// ones.
func BenchmarkExact(b *testing.B) {
	m := randModel(rand.New(rand.NewSource(8)), 8)
	b.Run("cpus=8", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := Exact(m, nil, AutoRoot); err != nil {
				b.Fatal(err)
			}
		}
	})
}
