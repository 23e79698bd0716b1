package graph

import (
	"errors"
	"math"
	"math/bits"
	"testing"
)

func TestPermIsBijection(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 7, 64, 1000, 1 << 12} {
		p := newPerm(n, 42)
		seen := make([]bool, n)
		for x := range n {
			y := p.at(x)
			if y >= n || seen[y] {
				t.Fatalf("n=%d: %d maps to %d, out of range or twice", n, x, y)
			}
			seen[y] = true
		}
	}
}

func TestPermDependsOnSeed(t *testing.T) {
	a, b := newPerm(1<<10, 1), newPerm(1<<10, 2)
	same := 0
	for x := range uint64(1 << 10) {
		if a.at(x) == b.at(x) {
			same++
		}
	}
	if same > 20 { // about 1 expected for independent permutations
		t.Errorf("seeds 1 and 2 agree on %d of 1024 values", same)
	}
}

func shares(k *Kronecker, ranks int) [][2]int64 {
	var all [][2]int64
	for r := range ranks {
		lo, hi := k.Share(r, ranks)
		for i := lo; i < hi; i++ {
			u, v := k.Edge(i)
			all = append(all, [2]int64{u, v})
		}
	}
	return all
}

func TestSharesMakeOneList(t *testing.T) {
	k, err := Graph500(8, 7)
	if err != nil {
		t.Fatal(err)
	}
	want := shares(k, 1)
	if int64(len(want)) != k.Edges() {
		t.Fatalf("%d edges, want %d", len(want), k.Edges())
	}
	for _, ranks := range []int{2, 3, 4, 7} {
		got := shares(k, ranks)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("ranks=%d: edge %d is %v, want %v", ranks, i, got[i], want[i])
			}
		}
	}
}

func TestDeterministicBySeed(t *testing.T) {
	a, _ := Graph500(8, 1)
	b, _ := Graph500(8, 1)
	c, _ := Graph500(8, 2)
	ea, eb, ec := shares(a, 1), shares(b, 1), shares(c, 1)
	diff := 0
	for i := range ea {
		if ea[i] != eb[i] {
			t.Fatalf("seed 1 twice: edge %d is %v and %v", i, ea[i], eb[i])
		}
		if ea[i] != ec[i] {
			diff++
		}
	}
	if diff < len(ea)/2 {
		t.Errorf("seeds 1 and 2 share %d of %d edges", len(ea)-diff, len(ea))
	}
}

// TestDegreeDistribution compares the raw Kronecker samples with their
// law: a source with k one-bits out of SCALE has probability
// (A+B)^(SCALE-k) (C+D)^k, so the sources with k one-bits receive a
// binomial share of the edges; each class's count must be within five
// standard deviations.
func TestDegreeDistribution(t *testing.T) {
	const scale = 12
	k, _ := Graph500(scale, 3)
	count := make([]float64, scale+1)
	var targets [scale + 1]float64
	for j := range k.Edges() {
		u, v := k.raw(j)
		count[bits.OnesCount64(uint64(u))]++
		targets[bits.OnesCount64(uint64(v))]++
	}
	m := float64(k.Edges())
	cd := 1 - DefaultA - DefaultB
	bd := DefaultB + (1 - DefaultA - DefaultB - DefaultC)
	for ones := range scale + 1 {
		for _, tc := range []struct {
			name string
			got  float64
			q    float64
		}{{"source", count[ones], cd}, {"target", targets[ones], bd}} {
			p := binom(scale, ones) * math.Pow(tc.q, float64(ones)) * math.Pow(1-tc.q, float64(scale-ones))
			want, sd := m*p, math.Sqrt(m*p*(1-p))
			if math.Abs(tc.got-want) > 5*sd+1 {
				t.Errorf("%ss with %d one-bits: %v edges, want %.0f ± %.0f", tc.name, ones, tc.got, want, 5*sd)
			}
		}
	}
}

func binom(n, k int) float64 {
	r := 1.0
	for i := range k {
		r = r * float64(n-i) / float64(i+1)
	}
	return r
}

// TestRelabelKeepsDegrees: relabelling permutes the degree sequence.
func TestRelabelKeepsDegrees(t *testing.T) {
	k, _ := Graph500(9, 5)
	raw := make([]int, k.Vertices())
	out := make([]int, k.Vertices())
	for j := range k.Edges() {
		u, v := k.raw(j)
		raw[u]++
		raw[v]++
		u, v = k.Edge(j)
		out[u]++
		out[v]++
	}
	hist := func(d []int) map[int]int {
		h := map[int]int{}
		for _, x := range d {
			h[x]++
		}
		return h
	}
	hr, ho := hist(raw), hist(out)
	for d, n := range hr {
		if ho[d] != n {
			t.Fatalf("%d vertices of degree %d before relabelling, %d after", n, d, ho[d])
		}
	}
}

func TestBadParameters(t *testing.T) {
	for _, tc := range []struct{ scale, ef int }{{0, 16}, {32, 16}, {10, 0}} {
		if _, err := NewKronecker(tc.scale, tc.ef, DefaultA, DefaultB, DefaultC, 1); !errors.Is(err, ErrBadGraph) {
			t.Errorf("scale %d edgefactor %d: %v, want ErrBadGraph", tc.scale, tc.ef, err)
		}
	}
	if _, err := NewKronecker(10, 16, 0.5, 0.3, 0.3, 1); !errors.Is(err, ErrBadGraph) {
		t.Errorf("A+B+C > 1: %v", err)
	}
}
