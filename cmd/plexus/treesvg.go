package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/plexus-hpc/plexus/internal/svg"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// writeTreeSVG draws t with its simulated latency for op in the title and
// its nodes coloured by NUMA node, or by package on a machine of one NUMA
// node, where the package is the boundary that costs.
func writeTreeSVG(w io.Writer, m *topo.Model, t *tree.Tree, op tree.Op) error {
	lat, err := tree.Simulate(m, t, op)
	if err != nil {
		return err
	}
	title := fmt.Sprintf("%s tree on %s, root %d: %s %.0f ns", t.Topology, t.Model, t.Root, op, lat.Latency)
	return svg.WriteTree(w, svg.TreeGraph{Title: title, Root: t.Root, Children: t.Children,
		Groups: treeGroups(m, t.Members())})
}

// treeGroups returns one group per NUMA node (or package, when the machine
// has one NUMA node), indexed as in the model so that colours stay fixed
// across trees of one machine, each named with its CPUs in the tree.
func treeGroups(m *topo.Model, members []int) []svg.Group {
	kind, of := "NUMA node", func(c topo.CPU) int { return m.Nodes[c.Node].OSIndex }
	if len(m.Nodes) <= 1 {
		kind, of = "package", func(c topo.CPU) int { return c.Package }
	}
	byKey := map[int][]int{}
	for _, c := range m.CPUs {
		if slices.Contains(members, c.ID) {
			byKey[of(c)] = append(byKey[of(c)], c.ID)
		}
	}
	var keys []int
	for _, c := range m.CPUs {
		keys = append(keys, of(c))
	}
	slices.Sort(keys)
	var groups []svg.Group
	for _, k := range slices.Compact(keys) {
		name := fmt.Sprintf("%s %d", kind, k)
		if ids := byKey[k]; len(ids) > 0 {
			name += ": cpus " + formatCPUList(ids)
		}
		groups = append(groups, svg.Group{Name: name, Nodes: byKey[k]})
	}
	return groups
}
