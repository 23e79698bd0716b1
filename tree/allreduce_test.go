package tree

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
)

// costModel is n CPUs (ids 0..n-1) where sending from i to j costs
// s(i, j) and receiving it r(i, j).
func costModel(n int, s, r func(i, j int) float64) *topo.Model {
	m := &topo.Model{Name: fmt.Sprintf("cost%d", n), Nodes: []topo.Node{{OSIndex: 0}}}
	for id := range n {
		m.CPUs = append(m.CPUs, topo.CPU{ID: id, Core: id, L2: id, L3: 0})
	}
	m.Send, m.Recv = topo.NewCosts(n, false), topo.NewCosts(n, false)
	for i := range n {
		for j := range n {
			if i != j {
				m.Send.Mean[i][j], m.Recv.Mean[i][j] = s(i, j), r(i, j)
			}
		}
	}
	return m
}

func uniformModel(n int, s, r float64) *topo.Model {
	return costModel(n, func(int, int) float64 { return s }, func(int, int) float64 { return r })
}

// flatTree is member 0 with every other member as its child.
func flatTree(n int) *Tree {
	t := &Tree{Root: 0, Children: map[int][]int{0: {}}}
	for c := 1; c < n; c++ {
		t.Children[0] = append(t.Children[0], c)
		t.Children[c] = []int{}
	}
	return t
}

func simulate(t *testing.T, m *topo.Model, tr *Tree, a Algorithm, b int, c AllreduceCosts) float64 {
	t.Helper()
	got, err := SimulateAllreduce(m, tr, tr, a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Recursive doubling against costs worked out by hand. Send 10, receive
// 30; 8 bytes at 1 ns/B each way and 2 ns/B to fold make a send 18 and a
// folding receive 54 (38 without the fold).
func TestSimulateDoublingByHand(t *testing.T) {
	c := AllreduceCosts{Byte: 1, Op: 2}
	cases := []struct {
		n, bytes int
		want     float64
	}{
		{1, 8, 0},
		{2, 0, 40}, // one round: send 10, then receive 30
		{4, 0, 80}, // two rounds
		{4, 8, 2 * (18 + 54)},
		// Three members: 2 folds into 0 (0 busy until 10+30 = 40), 0 and
		// 1 exchange (0: 40+10+30 = 80; 1 receives 0's at 50, done 80),
		// 0 sends the result to 2 (90) and 2 has it at 120.
		{3, 0, 120},
		// With 8 bytes: fold-in 18+54 = 72; round 72+18+54 = 144;
		// fold-out 144+18 = 162, received 162+38 = 200.
		{3, 8, 200},
		// Five: 4 folds into 0 (40), two rounds (80, 120), 0 sends to 4:
		// 130 + 30.
		{5, 0, 160},
	}
	for _, k := range cases {
		m := uniformModel(k.n, 10, 30)
		if got := simulate(t, m, flatTree(k.n), AllreduceDoubling, k.bytes, c); got != k.want {
			t.Errorf("%d members, %d bytes: doubling %g ns, want %g", k.n, k.bytes, got, k.want)
		}
	}
}

// Rabenseifner on four members, by hand: a 16-byte vector is four blocks
// of 4 bytes; the reduce-scatter exchanges two blocks (8 bytes) then one
// (4), the allgather one then two.
func TestSimulateRabenseifnerByHand(t *testing.T) {
	c := AllreduceCosts{Byte: 1, Op: 2}
	m := uniformModel(4, 10, 30)
	// Round of b bytes: send 10+b, receive 30+b (+2b folding).
	want := (10 + 8 + 30 + 8 + 16) + (10 + 4 + 30 + 4 + 8) + (10 + 4 + 30 + 4) + (10 + 8 + 30 + 8)
	if got := simulate(t, m, flatTree(4), AllreduceRabenseifner, 16, c); got != float64(want) {
		t.Errorf("rabenseifner %g ns, want %d", got, want)
	}
}

// Trees cost the tree simulator's reduction plus broadcast; two members
// exchange, as coll's teams of two do.
func TestSimulateTreesIsReducePlusBcast(t *testing.T) {
	for _, n := range []int{3, 5, 8} {
		m := uniformModel(n, 10, 30)
		for _, tr := range []*Tree{flatTree(n), mustBuild(t, m, Binary)} {
			r, _ := Simulate(m, tr, Reduce)
			b, _ := Simulate(m, tr, Bcast)
			if got := simulate(t, m, tr, AllreduceTrees, 0, AllreduceCosts{}); got != r.Latency+b.Latency {
				t.Errorf("%d members, %s: trees %g, want reduce %g + bcast %g", n, tr.Topology, got, r.Latency, b.Latency)
			}
		}
	}
	m := uniformModel(2, 10, 30)
	if tr, db := simulate(t, m, flatTree(2), AllreduceTrees, 8, DefaultAllreduceCosts),
		simulate(t, m, flatTree(2), AllreduceDoubling, 8, DefaultAllreduceCosts); tr != db {
		t.Errorf("two members: trees %g, doubling %g: want the exchange's cost for both", tr, db)
	}
}

func mustBuild(t *testing.T, m *topo.Model, top Topology) *Tree {
	t.Helper()
	tr, err := Build(m, Spec{Topology: top, Root: 0})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// On eight uniform members doubling and Rabenseifner cost the same
// message terms, 3·(S+R), per phase; Rabenseifner moves 7/8 of the vector
// per phase where doubling moves three vectors, so it overtakes at
// b* = 3(S+R) / (2.5·Byte + 2.125·Op) bytes. The plan flips there.
func TestPlanFlipsAtTheModelsCrossover(t *testing.T) {
	c := DefaultAllreduceCosts
	m := uniformModel(8, 20, 60)
	tr := mustBuild(t, m, Binary)
	cross := 3 * (20 + 60) / (2.5*c.Byte + 2.125*c.Op)
	below, above := int(math.Floor(cross)), int(math.Ceil(cross))+1
	d1, r1 := simulate(t, m, tr, AllreduceDoubling, below, c), simulate(t, m, tr, AllreduceRabenseifner, below, c)
	d2, r2 := simulate(t, m, tr, AllreduceDoubling, above, c), simulate(t, m, tr, AllreduceRabenseifner, above, c)
	if !(d1 < r1 && r2 < d2) {
		t.Fatalf("crossover %g B: at %d doubling %g rabenseifner %g; at %d doubling %g rabenseifner %g", cross, below, d1, r1, above, d2, r2)
	}
	p, err := PlanAllreduce(m, tr, tr, 1<<16, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int{0, 1, 8, 64, 256} {
		if got := p.For(b); got != AllreduceDoubling {
			t.Errorf("%d bytes: plan %v gives %v, want doubling", b, p, got)
		}
	}
	for _, b := range []int{512, 4096, 1 << 16, 1 << 20} {
		if got := p.For(b); got != AllreduceRabenseifner {
			t.Errorf("%d bytes: plan %v gives %v, want rabenseifner", b, p, got)
		}
	}
}

// Three members where member 0 is far from the other two (a host of its
// own): doubling crosses three times (2 folds into 0, 0 and 1 exchange,
// 0 sends back to 2), the chain 2→1→0 and back twice. The plan takes the
// trees there and doubling when the members are equally near.
func TestPlanPrefersTreesWhereTheModelDoes(t *testing.T) {
	far := func(i, j int) float64 {
		if i == 0 || j == 0 {
			return 500
		}
		return 10
	}
	chain := &Tree{Root: 0, Children: map[int][]int{0: {1}, 1: {2}, 2: {}}}
	m := costModel(3, far, far)
	p, err := PlanAllreduce(m, chain, chain, 64, DefaultAllreduceCosts)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.For(8); got != AllreduceTrees {
		t.Errorf("far member 0: plan %v gives %v for 8 bytes, want trees", p, got)
	}
	p, err = PlanAllreduce(uniformModel(4, 10, 30), flatTree(4), flatTree(4), 64, DefaultAllreduceCosts)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.For(8); got != AllreduceDoubling {
		t.Errorf("uniform four: plan %v gives %v for 8 bytes, want doubling", p, got)
	}
}

func TestAllreducePlanFor(t *testing.T) {
	var zero AllreducePlan
	if zero.For(100) != AllreduceTrees {
		t.Errorf("zero plan gives %v, want trees", zero.For(100))
	}
	p := AllreducePlan{ByClass: []Algorithm{AllreduceTrees, AllreduceDoubling, AllreduceDoubling, AllreduceRabenseifner}}
	for b, want := range map[int]Algorithm{0: AllreduceTrees, 1: AllreduceDoubling, 3: AllreduceDoubling, 4: AllreduceRabenseifner, 1 << 30: AllreduceRabenseifner} {
		if got := p.For(b); got != want {
			t.Errorf("For(%d) = %v, want %v", b, got, want)
		}
	}
	if s := p.String(); s != "trees, doubling from 1 B, rabenseifner from 4 B" {
		t.Errorf("String() = %q", s)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back AllreducePlan
	if err := json.Unmarshal(b, &back); err != nil || back.String() != p.String() {
		t.Errorf("round trip of %s: %v, %v", b, back, err)
	}
	if err := json.Unmarshal([]byte(`{"by_class":["ring"]}`), &back); err == nil {
		t.Error("unknown algorithm decoded without error")
	}
	if err := (AllreducePlan{ByClass: []Algorithm{7}}).Validate(); err == nil {
		t.Error("plan with algorithm 7 validated")
	}
}

func TestSimulateAllreduceErrors(t *testing.T) {
	m := uniformModel(3, 10, 30)
	if _, err := SimulateAllreduce(m, flatTree(3), flatTree(2), AllreduceDoubling, 8, DefaultAllreduceCosts); err == nil {
		t.Error("trees of different members accepted")
	}
	if _, err := SimulateAllreduce(m, flatTree(3), flatTree(3), 9, 8, DefaultAllreduceCosts); err == nil {
		t.Error("algorithm 9 accepted")
	}
	if _, err := SimulateAllreduce(m, nil, flatTree(3), AllreduceTrees, 8, DefaultAllreduceCosts); err == nil {
		t.Error("nil tree accepted")
	}
}
