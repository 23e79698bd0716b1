package tree

import (
	"math/rand"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
)

// withLatency returns m with Latency.Mean[i][j] = l(i, j) off the diagonal.
func withLatency(m *topo.Model, l func(i, j int) float64) *topo.Model {
	m.Latency = topo.NewCosts(m.N(), false)
	for i := range m.N() {
		for j := range m.N() {
			if i != j {
				m.Latency.Mean[i][j] = l(i, j)
			}
		}
	}
	return m
}

// treeOf is a tree on members 0..len(kids)-1 rooted at 0.
func treeOf(kids [][]int) *Tree {
	tr := &Tree{Root: 0, Children: map[int][]int{}}
	for p, k := range kids {
		tr.Children[p] = k
	}
	return tr
}

// Every op on hand-computed trees of a machine with send 10, receive 5 and
// a flight of 20 from a lower to a higher CPU number (down the trees
// below) and 40 the other way (up them), so that a flight read in the
// wrong direction shows.
func TestSimulateLatencyByHand(t *testing.T) {
	m := withLatency(uniformModel(4, 10, 5), func(i, j int) float64 {
		if i < j {
			return 20
		}
		return 40
	})
	for _, c := range []struct {
		name                   string
		kids                   [][]int
		bcast, reduce, release float64
	}{
		// Root 0 with children 1, 2, 3. Broadcast: sends end at 10, 20,
		// 30; each child active 20 + 5 later, the last at 55. Reduction:
		// every message arrives at 10 + 40 = 50 and is received by 55, 60,
		// 65. Release: 10 + 20 + 5 = 35.
		{"flat", [][]int{{1, 2, 3}, nil, nil, nil}, 55, 65, 35},
		// A chain 0-1-2-3: down 3 hops of 35, up 3 hops of 55.
		{"chain", [][]int{{1}, {2}, {3}, nil}, 105, 165, 105},
		// 0 with children 1 and 2, 1 with child 3. Broadcast: 1 active at
		// 35, 2 at 20 + 25 = 45, 3 at 35 + 35 = 70. Reduction: 3's message
		// reaches 1 at 50, received by 55; 1's reaches 0 at 55 + 50 = 105,
		// 2's at 50: 0 receives 2 by 55 and 1 by 110. Release: 3 at 70.
		{"two levels", [][]int{{1, 2}, {3}, nil, nil}, 70, 110, 70},
	} {
		tr := treeOf(c.kids)
		for op, want := range map[Op]float64{
			Bcast: c.bcast, Reduce: c.reduce, Barrier: c.reduce + c.bcast, ReleaseBarrier: c.reduce + c.release,
		} {
			r, err := Simulate(m, tr, op)
			if err != nil {
				t.Fatal(err)
			}
			if r.Latency != want {
				t.Errorf("%s %v: %.1f, want %.1f", c.name, op, r.Latency, want)
			}
		}
	}
}

// Allreduce rounds with a flight: send 10, receive 30, flight 20, no
// bytes, so every message arrives 30 after its send starts.
func TestSimulateAllreduceLatencyByHand(t *testing.T) {
	c := AllreduceCosts{}
	for _, tc := range []struct {
		n    int
		a    Algorithm
		want float64
	}{
		// Both send at 0, the partner's message arrives at 30 and is
		// received by 60.
		{2, AllreduceDoubling, 60},
		{4, AllreduceDoubling, 120},
		// Reduce-scatter and allgather: four rounds of 60.
		{4, AllreduceRabenseifner, 240},
		// Member 2 folds into 0: sent by 10, arrives at 30, received by
		// 60. Round: 0 sends 60-70 and receives 1's message (arrived at
		// 30) by 100; 1 receives 0's (arrived at 90) by 120. 0 sends the
		// result to 2 from 100 to 110; it arrives at 130, received by 160.
		{3, AllreduceDoubling, 160},
		// A flat reduction (arrivals at 30, received by 60, 90, 120) and
		// broadcast (sends end at 10, 20, 30, children active 50 later).
		{4, AllreduceTrees, 120 + 80},
	} {
		m := withLatency(uniformModel(tc.n, 10, 30), func(int, int) float64 { return 20 })
		if got := simulate(t, m, flatTree(tc.n), tc.a, 0, c); got != tc.want {
			t.Errorf("%d members %v: %.1f, want %.1f", tc.n, tc.a, got, tc.want)
		}
	}
}

// randLatencyModel is randModel with random flights of 0–300, the range
// a hop takes among busy CPUs against sends and receives of tens to
// hundreds.
func randLatencyModel(rng *rand.Rand, n int) *topo.Model {
	return withLatency(randModel(rng, n), func(int, int) float64 { return 300 * rng.Float64() })
}

// A zero latency matrix must time every tree exactly as no latency does:
// the simulators add the flight where it is zero, which changes no bit.
func TestZeroLatencyChangesNothing(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for range 20 {
		m := randModel(rng, 2+rng.Intn(10))
		z := *m
		z.Latency = topo.NewCosts(m.N(), false)
		for _, top := range []Topology{Binary, Fibonacci, Sequential, MST, Adaptive, Best} {
			tr, err := Build(m, Spec{Topology: top, Root: AutoRoot})
			if err != nil {
				t.Fatal(err)
			}
			tz, err := Build(&z, Spec{Topology: top, Root: AutoRoot})
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range allOps() {
				a, _ := Simulate(m, tr, op)
				b, _ := Simulate(&z, tz, op)
				if a != b {
					t.Fatalf("%v %v: without latency %+v, with zero latency %+v", top, op, a, b)
				}
			}
		}
	}
}

// The search's incremental evaluation must agree with a full simulation
// of the tree it leads to on models with latency, for every op.
func TestSearchEvalMatchesSimulatorWithLatency(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for trial := range 4 {
		m := randLatencyModel(rng, 6+3*trial)
		n := m.N()
		g, _ := newGroup(m, nil)
		x := newSim(g)
		for _, op := range allOps() {
			l := newSearch(g, build(g, Binary, op, 0), op)
			tried := 0
			for range 200 {
				e := edit{v: 1 + rng.Intn(n-1), u: rng.Intn(n), swap: rng.Intn(2) == 0}
				if e.u == 0 {
					e.swap = false
				}
				if !l.valid(e) {
					continue
				}
				got := l.eval(e).lat
				l.apply(e)
				if want := x.latency(l.shape(), op); !within(got, want, 1e-9) || !within(l.cur.lat, want, 1e-9) {
					t.Fatalf("%d CPUs %v %+v: evaluated %.6f, after apply %.6f, simulated %.6f", n, op, e, got, l.cur.lat, want)
				}
				tried++
			}
			if tried < 50 {
				t.Errorf("%d CPUs %v: only %d of 200 random moves were valid", n, op, tried)
			}
		}
	}
}

// Best on models with latency is never slower than any tree it starts
// from, and its latency is what Simulate says of the tree it returns.
func TestBestWithLatency(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, n := range []int{3, 7, 12} {
		m := randLatencyModel(rng, n)
		for _, op := range allOps() {
			b, bt := latencyOf(t, m, Spec{Topology: Best, Op: op, Root: AutoRoot}, op)
			if err := bt.Validate(); err != nil {
				t.Fatal(err)
			}
			for _, top := range startTopologies {
				if l, _ := latencyOf(t, m, Spec{Topology: top, Root: AutoRoot}, op); b > l*(1+1e-12) {
					t.Errorf("%d CPUs %v: best %.1f > %v %.1f", n, op, b, top, l)
				}
			}
		}
	}
}

// Exact (whose bound must stay a lower bound with flights) finds the
// brute-force optimum on models with latency, and Jackson's order is
// still the best send order of every shape (bruteForce checks it).
func TestExactWithLatency(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for i, n := range []int{2, 3, 4, 5, 5, 6} {
		m := randLatencyModel(rng, n)
		root := m.CPUs[rng.Intn(n)].ID
		tr, lat, err := Exact(m, nil, root)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := newGroup(m, nil)
		r, _ := g.local(root)
		want := bruteForce(t, g, r)
		sim, err := Simulate(m, tr, Bcast)
		if err != nil {
			t.Fatal(err)
		}
		if !within(lat, want, 1e-9) || !within(sim.Latency, lat, 1e-12) {
			t.Errorf("case %d (%d CPUs): exact %.6f (simulated %.6f), brute force %.6f", i, n, lat, sim.Latency, want)
		}
	}
}

// A flight makes every deep tree slower than the same tree without it by
// at least one flight per level, and a flat tree by exactly one flight
// each way: what separates deep trees from flat ones on a busy machine.
func TestLatencyPaidPerLevel(t *testing.T) {
	const flight = 100
	plain := uniformModel(8, 10, 5)
	loaded := withLatency(uniformModel(8, 10, 5), func(int, int) float64 { return flight })
	chain := treeOf([][]int{{1}, {2}, {3}, {4}, {5}, {6}, {7}, nil})
	flat := flatTree(8)
	for _, c := range []struct {
		name   string
		tr     *Tree
		levels float64
	}{{"chain", chain, 7}, {"flat", flat, 1}} {
		a, _ := Simulate(plain, c.tr, Barrier)
		b, _ := Simulate(loaded, c.tr, Barrier)
		if b.Latency-a.Latency != 2*c.levels*flight {
			t.Errorf("%s barrier: %.1f without flights, %.1f with; want %v more", c.name, a.Latency, b.Latency, 2*c.levels*flight)
		}
	}
}
