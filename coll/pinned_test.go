package coll

import (
	"context"
	"fmt"
	"testing"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// machineCPUs returns up to n CPUs this process may use, skipping the
// test when there are fewer than two.
func machineCPUs(tb testing.TB, n int) []int {
	tb.Helper()
	cpus, err := affinity.Allowed()
	if err != nil || len(cpus) < 2 {
		tb.Skipf("pinning needs two usable CPUs: %v %v", cpus, err)
	}
	return cpus[:min(n, len(cpus))]
}

// modelOf is synthModel with its CPUs renamed to cpus.
func modelOf(cpus []int) *topo.Model {
	m := synthModel(len(cpus))
	for i := range m.CPUs {
		m.CPUs[i].ID = cpus[i]
	}
	return m
}

func pinnedTeam(tb testing.TB, cpus []int, top tree.Topology, tr transport) *Team {
	tb.Helper()
	t, err := tree.Build(modelOf(cpus), tree.Spec{Topology: top, Root: tree.AutoRoot})
	if err != nil {
		tb.Fatal(err)
	}
	return newTeam(tb, Config{Broadcast: t, Pin: true, transport: tr})
}

// Pinned members run on their CPUs, and every collective works there.
func TestPinnedTeam(t *testing.T) {
	cpus := machineCPUs(t, 2)
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			team := pinnedTeam(t, cpus, tree.Adaptive, tr.make())
			run(t, team, func(ctx context.Context, m *Member) error {
				if got, err := currentCPUs(); err != nil || len(got) != 1 || got[0] != m.CPU() {
					return fmt.Errorf("member %d runs on CPUs %v (%v)", m.CPU(), got, err)
				}
				return nil
			})
			mixed(t, team)
		})
	}
}
