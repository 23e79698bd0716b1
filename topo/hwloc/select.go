package hwloc

import (
	"fmt"
	"slices"

	"github.com/plexus-hpc/plexus/topo"
)

// selection is the part of the file that goes into the model.
type selection struct {
	w     *walker
	pus   []rawPU // sorted by OS index
	home  []int   // per PU: index into w.nodes of its NUMA node
	nodes []int   // indices into w.nodes, sorted by OS index: Model.Nodes order
	notes []string
}

// selectAllowed keeps the allowed PUs and NUMA nodes and gives each PU its
// local node. A PU whose local node is disallowed keeps that node anyway:
// the model describes where memory is local, not where the process may
// allocate, and every CPU needs a node.
func selectAllowed(root *xmlObject, w *walker, opt Options) (*selection, error) {
	cpus, nodes, err := allowedSets(root, opt)
	if err != nil {
		return nil, err
	}
	s := &selection{w: w}
	if err := s.keepPUs(cpus); err != nil {
		return nil, err
	}
	keep := make([]bool, len(w.nodes))
	seen := map[int]bool{}
	for i, n := range w.nodes {
		if seen[n.os] {
			return nil, fmt.Errorf("hwloc: NUMANode os_index %d appears twice", n.os)
		}
		seen[n.os], keep[i] = true, nodes.has(n.os)
	}
	if err := s.assignNodes(keep); err != nil {
		return nil, err
	}
	if len(s.pus) < len(w.pus) || len(s.nodes) < len(w.nodes) {
		s.notes = append(s.notes, fmt.Sprintf("allowed subset: %d of %d PUs, %d of %d NUMA nodes",
			len(s.pus), len(w.pus), len(s.nodes), len(w.nodes)))
	}
	return s, nil
}

// allowedSets returns the root's allowed cpuset and nodeset, or full sets
// when disallowed objects are wanted or the file does not restrict.
func allowedSets(root *xmlObject, opt Options) (cpus, nodes bitmap, err error) {
	cpus, nodes = fullBitmap, fullBitmap
	if opt.IncludeDisallowed {
		return cpus, nodes, nil
	}
	if root.AllowedCPUSet != "" {
		if cpus, err = root.bitmap("allowed_cpuset", root.AllowedCPUSet, ""); err != nil {
			return cpus, nodes, err
		}
	}
	if root.AllowedNodeSet != "" {
		nodes, err = root.bitmap("allowed_nodeset", root.AllowedNodeSet, "")
	}
	return cpus, nodes, err
}

func (s *selection) keepPUs(allowed bitmap) error {
	seen := map[int]bool{}
	for _, p := range s.w.pus {
		if seen[p.os] {
			return fmt.Errorf("hwloc: PU os_index %d appears twice", p.os)
		}
		seen[p.os] = true
		if allowed.has(p.os) {
			s.pus = append(s.pus, p)
		}
	}
	if len(s.pus) == 0 {
		return fmt.Errorf("hwloc: no allowed PU among %d PU objects (try Options.IncludeDisallowed)", len(s.w.pus))
	}
	slices.SortStableFunc(s.pus, func(a, b rawPU) int { return a.os - b.os })
	return nil
}

// assignNodes picks each PU's node among the kept ones, falling back to
// all nodes, and fixes the model's node order.
func (s *selection) assignNodes(keep []bool) error {
	all := make([]bool, len(keep))
	for i := range all {
		all[i] = true
	}
	s.home = make([]int, len(s.pus))
	for i, p := range s.pus {
		h := localNode(s.w.nodes, p.os, keep)
		if h < 0 {
			h = localNode(s.w.nodes, p.os, all)
		}
		if h < 0 {
			return fmt.Errorf("hwloc: no NUMANode cpuset contains PU %d", p.os)
		}
		s.home[i], keep[h] = h, true
	}
	for i, k := range keep {
		if k {
			s.nodes = append(s.nodes, i)
		}
	}
	slices.SortFunc(s.nodes, func(a, b int) int { return s.w.nodes[a].os - s.w.nodes[b].os })
	return nil
}

// localNode returns the index of the candidate node whose cpuset contains
// cpu and is smallest, i.e. the node attached nearest to the PU (a
// package's DRAM rather than memory attached to the whole machine); ties
// go to the lower OS index, which puts DRAM before KNL MCDRAM or HBM.
// It returns -1 when no candidate contains cpu.
func localNode(nodes []rawNode, cpu int, cand []bool) int {
	best := -1
	for i, n := range nodes {
		if !cand[i] || !n.cpuset.has(cpu) {
			continue
		}
		if best < 0 || better(n, nodes[best]) {
			best = i
		}
	}
	return best
}

func better(a, b rawNode) bool {
	ca, cb := a.cpuset.count(), b.cpuset.count()
	return ca < cb || ca == cb && a.os < b.os
}

// cpus builds the model's CPUs with dense Package, Core, L2 and L3 ids.
func (s *selection) cpus() []topo.CPU {
	pkg, core, l2, l3 := make([]int, len(s.pus)), make([]int, len(s.pus)), make([]int, len(s.pus)), make([]int, len(s.pus))
	nodePos := make(map[int]int, len(s.nodes))
	for pos, i := range s.nodes {
		nodePos[i] = pos
	}
	for i, p := range s.pus {
		pkg[i], core[i], l2[i], l3[i] = p.pkg, p.core, p.l2, p.l3
	}
	pkg, core, l2, l3 = dense(pkg), dense(core), dense(l2), dense(l3)
	out := make([]topo.CPU, len(s.pus))
	for i, p := range s.pus {
		out[i] = topo.CPU{ID: p.os, Package: pkg[i], Core: core[i], Node: nodePos[s.home[i]], L2: l2[i], L3: l3[i]}
	}
	return out
}

// dense renumbers raw ids to 0.. keeping their order, which is document
// order, and leaves -1 (absent) alone.
func dense(raw []int) []int {
	ids := slices.Clone(raw)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make([]int, len(raw))
	for i, r := range raw {
		out[i] = -1
		if r >= 0 {
			j, _ := slices.BinarySearch(ids, r)
			if ids[0] < 0 {
				j--
			}
			out[i] = j
		}
	}
	return out
}

func (s *selection) modelNodes() []topo.Node {
	out := make([]topo.Node, len(s.nodes))
	for pos, i := range s.nodes {
		out[pos] = topo.Node{OSIndex: s.w.nodes[i].os, MemoryBytes: s.w.nodes[i].mem}
	}
	return out
}
