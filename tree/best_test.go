package tree

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/hwloc"
)

// machine384 is the 24-node, 8-core, 2-thread hwloc machine with
// estimated costs: the largest group Best must handle quickly.
func machine384(tb testing.TB) *topo.Model {
	tb.Helper()
	m, err := hwloc.ReadFile(filepath.Join("..", "data", "hwloc", "192em64t-24n8c2t.xml"), hwloc.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if err := topo.Estimate(m, topo.DefaultEstimate()); err != nil {
		tb.Fatal(err)
	}
	if m.N() != 384 {
		tb.Fatalf("machine has %d CPUs, want 384", m.N())
	}
	return m
}

func latencyOf(t *testing.T, m *topo.Model, spec Spec, op Op) (float64, *Tree) {
	t.Helper()
	tr, err := Build(m, spec)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Simulate(m, tr, op)
	if err != nil {
		t.Fatal(err)
	}
	return r.Latency, tr
}

func TestBestBeatsEveryTopology(t *testing.T) {
	m := model2x10(t)
	for k := 2; k <= 20; k++ {
		cpus, err := RoundRobin(m, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range allOps() {
			b, bt := latencyOf(t, m, Spec{Topology: Best, Op: op, CPUs: cpus, Root: AutoRoot}, op)
			if err := bt.Validate(); err != nil || len(bt.Children) != k {
				t.Fatalf("%d CPUs %v: invalid tree: %v", k, op, err)
			}
			for _, top := range startTopologies {
				if l, _ := latencyOf(t, m, Spec{Topology: top, CPUs: cpus, Root: AutoRoot}, op); b > l {
					t.Errorf("%d CPUs %v: best %.1f > %v %.1f", k, op, b, top, l)
				}
			}
		}
	}
}

// Smelt's adaptive tree reduces in 2385–2940 cycles on the 2x10 machine
// and the Fibonacci tree, the best static one, in 2298.
func TestBestReduceBeatsFibonacci(t *testing.T) {
	m := model2x10(t)
	fib, _ := latencyOf(t, m, Spec{Topology: Fibonacci, Root: 0}, Reduce)
	if !within(fib, 2298, 0.005) {
		t.Fatalf("fibonacci reduces in %.0f cycles, Smelt says 2298", fib)
	}
	b, _ := latencyOf(t, m, Spec{Topology: Best, Op: Reduce, Root: AutoRoot}, Reduce)
	t.Logf("best reduce %.0f cycles, fibonacci %.0f", b, fib)
	if b >= 2298 {
		t.Errorf("best reduce %.0f cycles, not below fibonacci's 2298", b)
	}
}

// Random 8-CPU groups of the 2x10 machine: Best's broadcast must be within
// 3% of the optimum.
func TestBestNearExact(t *testing.T) {
	m := model2x10(t)
	rng := rand.New(rand.NewSource(2016))
	groups := 12
	if testing.Short() {
		groups = 4
	}
	sum, worst := 0.0, 0.0
	for i := range groups {
		cpus := rng.Perm(20)[:8]
		_, opt, err := Exact(m, cpus, AutoRoot)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := latencyOf(t, m, Spec{Topology: Best, CPUs: cpus, Root: AutoRoot}, Bcast)
		gap := b/opt - 1
		sum, worst = sum+gap, max(worst, gap)
		if gap > 0.03 || gap < -1e-9 {
			t.Errorf("group %d %v: best %.1f, exact %.1f (gap %.2f%%)", i, cpus, b, opt, 100*gap)
		}
	}
	t.Logf("best vs exact broadcast over %d groups: mean gap %.2f%%, worst %.2f%%",
		groups, 100*sum/float64(groups), 100*worst)
}

func TestBestPair(t *testing.T) {
	m := model2x10(t)
	for _, k := range []int{5, 12, 20} {
		cpus, _ := RoundRobin(m, k)
		spec := Spec{CPUs: cpus, Root: AutoRoot}
		red, bc, err := BestPair(m, spec)
		if err != nil {
			t.Fatal(err)
		}
		if red.Root != bc.Root {
			t.Errorf("%d CPUs: roots %d and %d differ", k, red.Root, bc.Root)
		}
		r, _ := Simulate(m, red, Reduce)
		b, _ := Simulate(m, bc, Bcast)
		single, _ := latencyOf(t, m, Spec{Topology: Best, Op: Barrier, CPUs: cpus, Root: AutoRoot}, Barrier)
		t.Logf("%d CPUs: pair %.0f + %.0f = %.0f, best single-tree barrier %.0f", k, r.Latency, b.Latency, r.Latency+b.Latency, single)
		if r.Latency+b.Latency > single*(1+1e-12) {
			t.Errorf("%d CPUs: pair barrier %.1f > single tree %.1f", k, r.Latency+b.Latency, single)
		}
	}
	if _, _, err := BestPair(m, Spec{CPUs: []int{1, 2}, Root: 3}); err == nil {
		t.Error("root outside the group: no error")
	}
}

func TestBestDeterministic(t *testing.T) {
	m := model2x10(t)
	for _, op := range Ops() {
		spec := Spec{Topology: Best, Op: op, Root: AutoRoot}
		_, a := latencyOf(t, m, spec, op)
		_, b := latencyOf(t, m, spec, op)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%v: two runs built different trees", op)
		}
	}
}

// The incremental evaluation must agree with the simulator on every move
// it scores.
func TestSearchEvalMatchesSimulator(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	m := randModel(rng, 12)
	g, _ := newGroup(m, nil)
	x := newSim(g)
	for _, op := range allOps() {
		l := newSearch(g, build(g, Fibonacci, op, 0), op)
		for range 300 {
			e := edit{v: 1 + rng.Intn(11), u: 1 + rng.Intn(11), swap: rng.Intn(2) == 0}
			if rng.Intn(8) == 0 {
				e.u, e.swap = 0, false
			}
			if !l.valid(e) {
				continue
			}
			got := l.eval(e).lat
			l.apply(e)
			if want := x.latency(l.shape(), op); !within(got, want, 1e-9) || !within(l.cur.lat, want, 1e-9) {
				t.Fatalf("%v %+v: evaluated %.6f, after apply %.6f, simulated %.6f", op, e, got, l.cur.lat, want)
			}
		}
	}
}

// valid reports whether bestEditFor would consider e.
func (l *search) valid(e edit) bool {
	v, u := e.v, e.u
	switch {
	case v == u || v == l.root || l.inSubtree(u, v):
		return false
	case e.swap:
		return u != l.root && !l.inSubtree(v, u)
	}
	return u != l.parent[v]
}

func TestBestLargeMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("384 CPUs")
	}
	m := machine384(t)
	for _, op := range []Op{Bcast} {
		start := time.Now()
		b, _ := latencyOf(t, m, Spec{Topology: Best, Op: op, Root: AutoRoot}, op)
		took := time.Since(start)
		a, _ := latencyOf(t, m, Spec{Topology: Adaptive, Root: AutoRoot}, op)
		t.Logf("384 CPUs %v: best %.1f ns in %v, adaptive %.1f ns", op, b, took, a)
		if b > a {
			t.Errorf("best %.1f worse than adaptive %.1f", b, a)
		}
		if took > 30*time.Second {
			t.Errorf("best took %v on 384 CPUs, want under 30 s", took)
		}
	}
}

func BenchmarkBest(b *testing.B) {
	m := machine384(b)
	for _, k := range []int{8, 20, 96, 384} {
		cpus, err := RoundRobin(m, k)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("cpus=%d", k), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Build(m, Spec{Topology: Best, CPUs: cpus, Root: AutoRoot}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
