package tree

import (
	"math"
	"slices"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
)

// fourNodes is a 4-node machine with nodes of unequal size and CPU ids
// listed out of order, so RoundRobin must sort and skip exhausted nodes.
func fourNodes() *topo.Model {
	m := &topo.Model{Name: "four", Nodes: make([]topo.Node, 4)}
	for _, c := range []struct{ id, node int }{
		{9, 0}, {0, 0}, {1, 1}, {5, 1}, {2, 2}, {3, 3}, {7, 3}, {8, 3},
	} {
		m.CPUs = append(m.CPUs, topo.CPU{ID: c.id, Core: c.id, Node: c.node, L2: -1, L3: c.node})
	}
	return m
}

func TestRoundRobin(t *testing.T) {
	m := fourNodes()
	for _, c := range []struct {
		k    int
		want []int
	}{
		{1, []int{0}},
		{4, []int{0, 1, 2, 3}}, // one per node, as in §5.2
		{6, []int{0, 1, 2, 3, 9, 5}},
		{8, []int{0, 1, 2, 3, 9, 5, 7, 8}}, // node 2 exhausted after round 0
	} {
		got, err := RoundRobin(m, c.k)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("RoundRobin(%d) = %v, want %v", c.k, got, c.want)
		}
	}
	for _, k := range []int{0, -1, 9} {
		if _, err := RoundRobin(m, k); err == nil {
			t.Errorf("RoundRobin(%d) on 8 CPUs: no error", k)
		}
	}
}

func TestRoundRobin2x10(t *testing.T) {
	got, err := RoundRobin(model2x10(t), 5)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 10, 1, 11, 2}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestCompare(t *testing.T) {
	m := model2x10(t)
	rows, err := Compare(m, nil, AutoRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(Topologies()) {
		t.Fatalf("%d rows, want %d", len(rows), len(Topologies()))
	}
	for i, r := range rows {
		if r.Topology != Topologies()[i] {
			t.Errorf("row %d is %v, want %v", i, r.Topology, Topologies()[i])
		}
		if r.Topology != Best && r.Root != 13 {
			t.Errorf("%v: root %d, Smelt's cheapest root is 13", r.Topology, r.Root)
		}
		for _, op := range Ops() {
			if l := r.Latency[op]; !(l > 0) {
				t.Errorf("%v %v: latency %v", r.Topology, op, l)
			}
		}
	}
	checkBestBeatsAll(t, rows)
	checkRowMatchesBuild(t, m, rows[0])
}

// Best is documented never to be worse than any other topology.
func checkBestBeatsAll(t *testing.T, rows []Row) {
	t.Helper()
	best := rows[slices.IndexFunc(rows, func(r Row) bool { return r.Topology == Best })]
	for _, op := range Ops() {
		for _, r := range rows {
			if best.Latency[op] > r.Latency[op]*(1+1e-9) {
				t.Errorf("%v: best %.1f > %v %.1f", op, best.Latency[op], r.Topology, r.Latency[op])
			}
		}
		if bs := BestStatic(rows, op); best.Latency[op] > bs {
			t.Errorf("%v: best %.1f > best static %.1f", op, best.Latency[op], bs)
		}
	}
}

func checkRowMatchesBuild(t *testing.T, m *topo.Model, row Row) {
	t.Helper()
	tr, err := Build(m, Spec{Topology: row.Topology, Root: AutoRoot})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range Ops() {
		r, _ := Simulate(m, tr, op)
		if r.Latency != row.Latency[op] {
			t.Errorf("%v %v: Compare %.1f, Build+Simulate %.1f", row.Topology, op, row.Latency[op], r.Latency)
		}
	}
}

func TestCompareErrors(t *testing.T) {
	m := model2x10(t)
	if _, err := Compare(m, []int{0, 1, 99}, AutoRoot); err == nil {
		t.Error("CPU outside the model: no error")
	}
	if _, err := Compare(m, []int{0, 1, 2}, 5); err == nil {
		t.Error("root outside the group: no error")
	}
	noCosts := fourNodes()
	if _, err := Compare(noCosts, nil, AutoRoot); err == nil {
		t.Error("model without costs: no error")
	}
}

func TestBestStatic(t *testing.T) {
	rows := []Row{
		{Topology: Adaptive, Latency: map[Op]float64{Bcast: 1}},
		{Topology: Binary, Latency: map[Op]float64{Bcast: 7}},
		{Topology: Cluster, Latency: map[Op]float64{Bcast: 5}},
		{Topology: AdaptiveBase, Latency: map[Op]float64{Bcast: 2}},
	}
	if got := BestStatic(rows, Bcast); got != 5 {
		t.Errorf("BestStatic = %v, want 5 (adaptive rows are not static)", got)
	}
	if got := BestStatic(rows[:1], Bcast); !math.IsInf(got, 1) {
		t.Errorf("no static rows: %v, want +Inf", got)
	}
}

func TestSweep(t *testing.T) {
	m := model2x10(t)
	sizes := []int{2, 4, 20}
	var calls [][2]int
	pts, err := Sweep(m, sizes, func(done, total int) { calls = append(calls, [2]int{done, total}) })
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != len(sizes) || len(calls) != len(sizes) {
		t.Fatalf("%d points, %d progress calls; want %d each", len(pts), len(calls), len(sizes))
	}
	for i, p := range pts {
		if p.Size != sizes[i] || len(p.Rows) != len(Topologies()) {
			t.Errorf("point %d: size %d with %d rows", i, p.Size, len(p.Rows))
		}
		checkBestBeatsAll(t, p.Rows)
		if i > 0 && calls[i][0] <= calls[i-1][0] {
			t.Errorf("progress not increasing: %v", calls)
		}
	}
	if last := calls[len(calls)-1]; last[0] != last[1] {
		t.Errorf("final progress %v, want done == total", last)
	}
	if _, err := Sweep(m, []int{2, 21}, nil); err == nil {
		t.Error("size above N: no error")
	}
}
