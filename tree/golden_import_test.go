package tree

import (
	"path/filepath"
	"testing"

	"github.com/plexus-hpc/plexus/topo/smelt"
)

// The same golden check through the real importer, which converts cycles
// to nanoseconds at the machine's 2.5 GHz clock.
func TestImportedModelMatchesSmeltGolden(t *testing.T) {
	m, err := smelt.ReadMachineDB(filepath.Join("..", "data", "smelt", "machinedb", "intel_xeon_e5_v2_2x10"), smelt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ghz := m.Provenance.FreqGHz
	for _, name := range []string{"adaptivetree", "bintree", "fibonacci", "cluster", "mst"} {
		gd := readGolden(t, name)
		for op, want := range map[Op]float64{Bcast: gd.bcast, Reduce: gd.reduce, Barrier: gd.barrier} {
			r, err := Simulate(m, gd.tree, op)
			if err != nil {
				t.Fatal(err)
			}
			if got := smelt.Cycles(r.Latency, ghz); !within(got, want, 0.005) {
				t.Errorf("%s %v: %.1f cycles (%.1f ns at %.2f GHz), Smelt %.0f", name, op, got, r.Latency, ghz, want)
			}
		}
	}
}
