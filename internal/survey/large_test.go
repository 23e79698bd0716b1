package survey

import (
	"path/filepath"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/hwloc"
	"github.com/plexus-hpc/plexus/tree"
)

// The 384-PU machine of the targets: the adaptive tree must take
// under 2 s and Best under 30 s (benchmarks, recorded in docs/trees.md).
func large(b *testing.B) *topo.Model {
	m, err := hwloc.ReadFile(filepath.Join(dataDir, "hwloc", "192em64t-24n8c2t.xml"), hwloc.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := topo.Estimate(m, topo.DefaultEstimate()); err != nil {
		b.Fatal(err)
	}
	return m
}

func BenchmarkLargeMachine(b *testing.B) {
	m := large(b)
	for _, c := range []struct {
		topology tree.Topology
		op       tree.Op
	}{{tree.Adaptive, tree.Bcast}, {tree.Best, tree.Bcast}, {tree.Best, tree.Reduce}, {tree.Best, tree.Barrier}} {
		b.Run("cpus=384/topology="+c.topology.String()+"/op="+c.op.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tree.Build(m, tree.Spec{Topology: c.topology, Op: c.op, Root: tree.AutoRoot}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
