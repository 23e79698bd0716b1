package tree

import "testing"

// Smelt's optimised adaptive tree on the 2x10 machine simulates to 1386
// cycles (shuffle + sort); ours must be at least as fast as its base tree
// and within 3% of Smelt's optimised result.
func TestAdaptiveOptimisationsHelp(t *testing.T) {
	m := model2x10(t)
	base, err := Build(m, Spec{Topology: AdaptiveBase, Root: AutoRoot})
	if err != nil {
		t.Fatal(err)
	}
	opt, err := Build(m, Spec{Topology: Adaptive, Root: AutoRoot})
	if err != nil {
		t.Fatal(err)
	}
	if base.Root != 13 || opt.Root != 13 {
		t.Fatalf("roots %d, %d; Smelt chooses 13", base.Root, opt.Root)
	}
	b, _ := Simulate(m, base, Bcast)
	o, _ := Simulate(m, opt, Bcast)
	t.Logf("adaptive base %.0f, optimised %.0f cycles", b.Latency, o.Latency)
	if o.Latency > b.Latency {
		t.Errorf("optimisations made the broadcast slower: %.0f > %.0f", o.Latency, b.Latency)
	}
	if gd := readGolden(t, "adaptivetree-shuffle-sort"); o.Latency > gd.bcast*1.03 {
		t.Errorf("optimised adaptive %.0f cycles, Smelt's %.0f", o.Latency, gd.bcast)
	}
}
