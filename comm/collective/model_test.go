package collective

import (
	"reflect"
	"testing"

	"github.com/plexus-hpc/plexus/tree"
)

// Every pair meets exactly once, and nobody has two partners in a round.
func TestPartnerTournament(t *testing.T) {
	for n := 1; n <= 9; n++ {
		met := map[[2]int]int{}
		for r := range rounds(n) {
			for a := range n {
				p := partner(a, r, n)
				if p < 0 {
					continue
				}
				if p == a || partner(p, r, n) != a {
					t.Fatalf("n=%d round %d: %d meets %d, who meets %d", n, r, a, p, partner(p, r, n))
				}
				met[[2]int{min(a, p), max(a, p)}]++
			}
		}
		if len(met) != n*(n-1)/2 {
			t.Fatalf("n=%d: %d pairs met, want %d", n, len(met), n*(n-1)/2)
		}
		for k, c := range met {
			if c != 2 { // once from each side
				t.Fatalf("n=%d: pair %v met %d times", n, k, c/2)
			}
		}
	}
}

func TestRankModelPlacement(t *testing.T) {
	hs := []hello{{Host: "a"}, {Host: "b"}, {Host: "a"}}
	cfg := Config{Model: Placement}
	cfg.Validate()
	m, err := rankModel(hs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Nodes) != 2 || m.CPUs[2].Node != 0 || m.CPUs[1].Node != 1 {
		t.Fatalf("hosts not made nodes: %+v", m.CPUs)
	}
	same := m.Send.Mean[0][2] + m.Recv.Mean[0][2]
	other := m.Send.Mean[0][1] + m.Recv.Mean[0][1]
	if same != DefaultSameHost || other != DefaultOtherHost {
		t.Fatalf("one-way costs %g and %g, want %d and %d", same, other, DefaultSameHost, DefaultOtherHost)
	}
}

func TestRankModelMeasured(t *testing.T) {
	hs := []hello{
		{Host: "a", Peers: []int{1, 2}, Send: []float64{100, 900}, RTT: []float64{1000, 1000}},
		{Host: "a", Peers: []int{2}, Send: []float64{200}, RTT: []float64{3000}},
		{Host: "a"},
	}
	cfg := Config{}
	cfg.Validate()
	m, err := rankModel(hs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m.Send.Mean[1][0] != 100 || m.Recv.Mean[1][0] != 400 {
		t.Errorf("pair 0-1: send %g recv %g, want 100 and 400", m.Send.Mean[1][0], m.Recv.Mean[1][0])
	}
	if m.Send.Mean[0][2] != 500 || m.Recv.Mean[0][2] != 0 {
		t.Errorf("pair 0-2: send capped at the one-way time: %g, %g", m.Send.Mean[0][2], m.Recv.Mean[0][2])
	}
	hs[1].Peers = nil
	hs[1].Send, hs[1].RTT = nil, nil
	if _, err := rankModel(hs, cfg); err == nil {
		t.Error("a model with an untimed pair was accepted")
	}
}

// Every rank runs on the trees rank 0 planned, and rank 0 keeps the model.
func TestSameTrees(t *testing.T) {
	f := twinWorlds(t, 4)
	ctx := testCtx(t)
	cs := newComms(t, ctx, f.ws, Config{Topology: tree.Best, Samples: 2})
	r0, b0 := cs[0].Trees()
	for r, c := range cs {
		rt, bt := c.Trees()
		if !reflect.DeepEqual(rt, r0) || !reflect.DeepEqual(bt, b0) {
			t.Fatalf("rank %d runs on other trees", r)
		}
		if (c.Model() != nil) != (r == 0) {
			t.Fatalf("rank %d: model %v", r, c.Model())
		}
	}
	if cs[0].Model().N() != 4 || !cs[0].Model().HasCosts() {
		t.Fatalf("model of the ranks: %+v", cs[0].Model())
	}
}

// TestCrowdedHostFlatTrees: ranks that all share one crowded host get
// the flat tree (every rank a child of the root) when the configured
// topology leaves the choice to the costs, whatever those measured; a
// topology asked for by name, a host with room, two hosts or two ranks
// keep the usual trees.
func TestCrowdedHostFlatTrees(t *testing.T) {
	chain := func(n int) []hello { // costs that make the generators build a chain
		hs := make([]hello, n)
		for i := range hs {
			hs[i].Host = "a"
			for j := i + 1; j < n; j++ {
				rtt := 1000.0
				if j == i+1 {
					rtt = 10
				}
				hs[i].Peers, hs[i].Send, hs[i].RTT = append(hs[i].Peers, j), append(hs[i].Send, rtt/4), append(hs[i].RTT, rtt)
			}
		}
		return hs
	}
	crowd := func(hs []hello) []hello {
		for i := range hs {
			hs[i].Crowded = true
		}
		return hs
	}
	flat := func(tr *tree.Tree) bool { return len(tr.Children[tr.Root]) == len(tr.Members())-1 }
	for _, tc := range []struct {
		name string
		hs   []hello
		top  tree.Topology
		flat bool
	}{
		{"crowded/best", crowd(chain(4)), tree.Best, true},
		{"crowded/adaptive", crowd(chain(5)), tree.Adaptive, true},
		{"crowded/binary asked", crowd(chain(5)), tree.Binary, false},
		{"room", chain(4), tree.Best, false},
		{"two hosts", func() []hello { hs := crowd(chain(4)); hs[2].Host, hs[3].Host = "b", "b"; return hs }(), tree.Best, false},
		{"two ranks", crowd(chain(2)), tree.Best, true}, // one edge: flat either way
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Topology: tc.top}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			_, r, b, err := (&Comm{cfg: cfg}).trees(tc.hs)
			if err != nil {
				t.Fatal(err)
			}
			if flat(r) != tc.flat || flat(b) != tc.flat {
				t.Errorf("reduce %v, bcast %v: flat %v %v, want %v", r.Children, b.Children, flat(r), flat(b), tc.flat)
			}
		})
	}
}

// TestCrowdedMachineTakesPlacement: on a crowded machine the model takes
// the hosts' placement costs instead of the times measured, which there
// follow the scheduler: two namespace hosts of two ranks each, whose
// pairs across timed faster than those within, get trees that cross
// between the hosts once; with room, the measured costs stand.
func TestCrowdedMachineTakesPlacement(t *testing.T) {
	hosts := []string{"h1", "h1", "h2", "h2"}
	hs := make([]hello, 4)
	for i := range hs {
		hs[i].Host = hosts[i]
		for j := i + 1; j < 4; j++ {
			rtt := 10.0 // across: fast
			if hosts[i] == hosts[j] {
				rtt = 1000
			}
			hs[i].Peers, hs[i].Send, hs[i].RTT = append(hs[i].Peers, j), append(hs[i].Send, rtt/4), append(hs[i].RTT, rtt)
		}
	}
	cross := func(tr *tree.Tree) int {
		n := 0
		for p, kids := range tr.Children {
			for _, k := range kids {
				if hosts[p] != hosts[k] {
					n++
				}
			}
		}
		return n
	}
	for _, top := range []tree.Topology{tree.Adaptive, tree.Best} {
		for _, crowded := range []bool{false, true} {
			for i := range hs {
				hs[i].Crowded = crowded
			}
			cfg := Config{Topology: top}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			m, r, b, err := (&Comm{cfg: cfg}).trees(hs)
			if err != nil {
				t.Fatal(err)
			}
			placed := m.Provenance.Source == "placement"
			if placed != crowded || (crowded && (cross(r) != 1 || cross(b) != 1)) {
				t.Errorf("%v, crowded %v: model from %s, trees %v %v cross hosts %d and %d times",
					top, crowded, m.Provenance.Source, r.Children, b.Children, cross(r), cross(b))
			}
			if keepTrees(hs, cfg) != crowded {
				t.Errorf("%v, crowded %v: allreduce keeps the trees: %v", top, crowded, keepTrees(hs, cfg))
			}
		}
	}
}
