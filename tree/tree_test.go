package tree

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
)

// randomModel is an n-CPU machine with `nodes` NUMA nodes and random costs,
// remote ones larger on average.
func randomModel(rng *rand.Rand, n, nodes int) *topo.Model {
	m := &topo.Model{Name: "random"}
	for k := range nodes {
		m.Nodes = append(m.Nodes, topo.Node{OSIndex: k})
	}
	for id := range n {
		m.CPUs = append(m.CPUs, topo.CPU{ID: id, Core: id, Node: id * nodes / n, L2: -1, L3: -1})
	}
	m.Send, m.Recv = topo.NewCosts(n, false), topo.NewCosts(n, false)
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			f := 1.0
			if m.CPUs[i].Node != m.CPUs[j].Node {
				f = 3
			}
			m.Send.Mean[i][j] = f * (20 + 40*rng.Float64())
			m.Recv.Mean[i][j] = f * (60 + 120*rng.Float64())
		}
	}
	return m
}

func TestEveryTopologySpansTheGroup(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 7, 12, 20, 33} {
		m := randomModel(rng, n+3, 3)
		cpus := m.IDs()[3:] // a group that is not a prefix of the machine
		for _, topology := range []Topology{Adaptive, AdaptiveBase, Binary, Fibonacci, Sequential, MST, Cluster, Bad} {
			for _, root := range []int{AutoRoot, cpus[n-1]} {
				tr, err := Build(m, Spec{Topology: topology, CPUs: cpus, Root: root})
				if err != nil {
					t.Fatalf("n=%d %v: %v", n, topology, err)
				}
				if err := tr.Validate(); err != nil || len(tr.Children) != n {
					t.Fatalf("n=%d %v: %v, %d members", n, topology, err, len(tr.Children))
				}
				if root != AutoRoot && tr.Root != root {
					t.Fatalf("n=%d %v: root %d, asked %d", n, topology, tr.Root, root)
				}
			}
		}
	}
}

func TestStaticShapes(t *testing.T) {
	m := randomModel(rand.New(rand.NewPCG(3, 4)), 12, 3)
	maxOut := func(tr *Tree) int {
		d := 0
		for _, k := range tr.Children {
			d = max(d, len(k))
		}
		return d
	}
	for _, c := range []struct {
		topology Topology
		outdeg   int
	}{{Binary, 2}, {Fibonacci, 2}, {MST, 2}, {Bad, 2}, {Sequential, 11}} {
		tr, _ := Build(m, Spec{Topology: c.topology, Root: 0})
		if got := maxOut(tr); got != c.outdeg {
			t.Errorf("%v: max out-degree %d, want %d", c.topology, got, c.outdeg)
		}
	}
	// Fibonacci trees of Fibonacci sizes: 12 nodes = order 5, depth 4.
	if tr, _ := Build(m, Spec{Topology: Fibonacci, Root: 0}); tr.Depth() != 4 {
		t.Errorf("fibonacci depth %d, want 4", tr.Depth())
	}
	// Cluster: exactly one edge enters each non-root NUMA node.
	tr, _ := Build(m, Spec{Topology: Cluster, Root: 5})
	cross := 0
	for u, kids := range tr.Children {
		for _, c := range kids {
			if m.CPUs[u].Node != m.CPUs[c].Node {
				cross++
			}
		}
	}
	if cross != 2 {
		t.Errorf("cluster has %d cross-node edges, want 2", cross)
	}
}

// A tree's send order matters for a broadcast and not for a reduction.
func TestReorderIsOptimalForShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50 {
		m := randomModel(rng, 6, 2)
		g, _ := newGroup(m, nil)
		s := sequential(g, 0)
		x := newSim(g)
		reorder(g, s)
		best, red := x.latency(s, Bcast), x.latency(s, Reduce)
		perm := append([]int(nil), s.kids[0]...)
		permute(perm, 0, func(p []int) {
			s.kids[0] = p
			if l := x.latency(s, Bcast); l < best-1e-9 {
				t.Fatalf("order %v gives %.2f < reordered %.2f", p, l, best)
			}
			if l := x.latency(s, Reduce); l != red {
				t.Fatalf("reduce depends on send order: %.2f vs %.2f", l, red)
			}
		})
	}
}

// permute calls f for every permutation of a[k:], in place, restoring a
// afterwards.
func permute(a []int, k int, f func([]int)) {
	if k == len(a) {
		f(a)
		return
	}
	for i := k; i < len(a); i++ {
		a[k], a[i] = a[i], a[k]
		permute(a, k+1, f)
		a[k], a[i] = a[i], a[k]
	}
}

func TestJSONRoundTripAndErrors(t *testing.T) {
	m := randomModel(rand.New(rand.NewPCG(7, 8)), 9, 3)
	tr, _ := Build(m, Spec{Topology: Adaptive, Root: AutoRoot})
	var buf bytes.Buffer
	if err := tr.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"children": {`) || !strings.Contains(buf.String(), `"root": `) {
		t.Fatalf("unexpected JSON form:\n%s", buf.String())
	}
	back, err := ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := Simulate(m, tr, Barrier)
	b, _ := Simulate(m, back, Barrier)
	if a != b {
		t.Fatalf("round trip changed the simulation: %v vs %v", a, b)
	}
	for name, in := range map[string]string{
		"cycle":       `{"root": 0, "children": {"0": [1], "1": [0]}}`,
		"twice":       `{"root": 0, "children": {"0": [1, 2], "1": [2], "2": []}}`,
		"unreachable": `{"root": 0, "children": {"0": [], "1": []}}`,
		"stranger":    `{"root": 0, "children": {"0": [5]}}`,
		"no root":     `{"root": 9, "children": {"0": []}}`,
		"no map":      `{"root": 0}`,
	} {
		if _, err := ReadJSON(strings.NewReader(in)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", name, err)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	m := randomModel(rand.New(rand.NewPCG(9, 9)), 4, 1)
	for name, spec := range map[string]Spec{
		"stranger cpu": {Topology: Binary, CPUs: []int{0, 7}, Root: AutoRoot},
		"duplicate":    {Topology: Binary, CPUs: []int{0, 0}, Root: AutoRoot},
		"empty":        {Topology: Binary, CPUs: []int{}, Root: AutoRoot},
		"root outside": {Topology: Binary, CPUs: []int{0, 1}, Root: 3},
	} {
		if _, err := Build(m, spec); !errors.Is(err, ErrGroup) {
			t.Errorf("%s: got %v, want ErrGroup", name, err)
		}
	}
	if _, err := Build(m, Spec{Root: AutoRoot}); err == nil {
		t.Error("spec without topology accepted")
	}
	m.Send, m.Recv = nil, nil
	if _, err := Build(m, Spec{Topology: Binary}); !errors.Is(err, ErrGroup) || !strings.Contains(err.Error(), "no send/receive costs") {
		t.Errorf("model without costs: %v", err)
	}
}
