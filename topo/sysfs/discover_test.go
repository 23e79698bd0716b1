package sysfs_test

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/sysfs"
)

func discover(t *testing.T, root string) *topo.Model {
	t.Helper()
	m, err := sysfs.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkGroups asserts that two CPUs (by OS id) have equal field values
// exactly when they are in the same group, and that the values are dense.
func checkGroups(t *testing.T, m *topo.Model, what string, field func(topo.CPU) int, groups ...[]int) {
	t.Helper()
	group := map[int]int{}
	for g, ids := range groups {
		for _, id := range ids {
			group[id] = g
		}
	}
	values := map[int]bool{}
	for _, a := range m.CPUs {
		values[field(a)] = true
		for _, b := range m.CPUs {
			if (group[a.ID] == group[b.ID]) != (field(a) == field(b)) {
				t.Errorf("%s: cpu%d has %d, cpu%d has %d; want groups %v", what, a.ID, field(a), b.ID, field(b), groups)
				return
			}
		}
	}
	for v := range len(groups) {
		if !values[v] {
			t.Errorf("%s: values %v are not dense 0..%d", what, values, len(groups)-1)
		}
	}
}

func pkg(c topo.CPU) int  { return c.Package }
func core(c topo.CPU) int { return c.Core }
func node(c topo.CPU) int { return c.Node }
func l2(c topo.CPU) int   { return c.L2 }
func l3(c topo.CPU) int   { return c.L3 }

func checkCounts(t *testing.T, m *topo.Model, n, packages, cores, nodes int) {
	t.Helper()
	p, c, nn := m.Counts()
	if m.N() != n || p != packages || c != cores || nn != nodes {
		t.Errorf("%d CPUs, %d packages, %d cores, %d nodes; want %d, %d, %d, %d", m.N(), p, c, nn, n, packages, cores, nodes)
	}
}

// (a) One socket, two cores, no node directory: a non-NUMA kernel.
func TestDiscoverNoNUMA(t *testing.T) {
	m := discover(t, build(t, machine{sockets: 1, cores: 2, threads: 1}))
	checkCounts(t, m, 2, 1, 2, 1)
	if !slices.Equal(m.IDs(), []int{0, 1}) {
		t.Errorf("ids %v", m.IDs())
	}
	if !reflect.DeepEqual(m.Nodes, []topo.Node{{OSIndex: 0}}) || m.Distance != nil {
		t.Errorf("nodes %+v, distance %v; want one node 0 and no distances", m.Nodes, m.Distance)
	}
	checkGroups(t, m, "node", node, []int{0, 1})
	checkGroups(t, m, "L2", l2, []int{0}, []int{1})
	checkGroups(t, m, "L3", l3, []int{0, 1})
	if m.Provenance.Source != "sysfs" || m.Provenance.Date != "" || m.HasCosts() {
		t.Errorf("provenance %+v, costs %v", m.Provenance, m.HasCosts())
	}
}

// (b) Two sockets, a NUMA node each, two cores per socket, two threads per
// core: CPUs 0-3 are first threads, 4-7 their siblings.
func TestDiscoverTwoSocketsSMT(t *testing.T) {
	m := discover(t, build(t, machine{
		sockets: 2, cores: 2, threads: 2,
		nodes:    []int{0, 1},
		distance: [][]int{{10, 21}, {21, 10}},
		memKB:    []uint64{1 << 20, 2 << 20},
	}))
	checkCounts(t, m, 8, 2, 4, 2)
	checkGroups(t, m, "package", pkg, []int{0, 1, 4, 5}, []int{2, 3, 6, 7})
	checkGroups(t, m, "core", core, []int{0, 4}, []int{1, 5}, []int{2, 6}, []int{3, 7})
	checkGroups(t, m, "node", node, []int{0, 1, 4, 5}, []int{2, 3, 6, 7})
	checkGroups(t, m, "L2", l2, []int{0, 4}, []int{1, 5}, []int{2, 6}, []int{3, 7})
	checkGroups(t, m, "L3", l3, []int{0, 1, 4, 5}, []int{2, 3, 6, 7})
	wantNodes := []topo.Node{{OSIndex: 0, MemoryBytes: 1 << 30}, {OSIndex: 1, MemoryBytes: 2 << 30}}
	if !reflect.DeepEqual(m.Nodes, wantNodes) {
		t.Errorf("nodes %+v, want %+v", m.Nodes, wantNodes)
	}
	if want := [][]float64{{10, 21}, {21, 10}}; !reflect.DeepEqual(m.Distance, want) {
		t.Errorf("distance %v, want %v", m.Distance, want)
	}
	if i, _ := m.Index(4); m.CPUs[i].Node != 0 || m.CPUs[i].Package != 0 {
		t.Errorf("cpu4 = %+v, want package 0, node 0", m.CPUs[i])
	}
}

// (c) Non-contiguous online CPUs and sparse node numbers: CPUs 2-3 and 6-7
// are offline, and the nodes are node0 and node2.
func TestDiscoverSparse(t *testing.T) {
	m := discover(t, build(t, machine{
		sockets: 2, cores: 4, threads: 1,
		online:   "0-1,4-5",
		nodes:    []int{0, 2},
		distance: [][]int{{10, 20}, {20, 10}},
	}))
	checkCounts(t, m, 4, 2, 4, 2)
	if !slices.Equal(m.IDs(), []int{0, 1, 4, 5}) {
		t.Errorf("ids %v, want [0 1 4 5]", m.IDs())
	}
	if m.Nodes[0].OSIndex != 0 || m.Nodes[1].OSIndex != 2 {
		t.Errorf("nodes %+v, want OS indices 0 and 2", m.Nodes)
	}
	checkGroups(t, m, "node", node, []int{0, 1}, []int{4, 5})
	checkGroups(t, m, "core", core, []int{0}, []int{1}, []int{4}, []int{5})
	checkGroups(t, m, "L3", l3, []int{0, 1}, []int{4, 5})
	if want := [][]float64{{10, 20}, {20, 10}}; !reflect.DeepEqual(m.Distance, want) {
		t.Errorf("distance %v, want %v", m.Distance, want)
	}
}

// Packages are numbered densely even when the first package is offline.
func TestDiscoverDensePackages(t *testing.T) {
	m := discover(t, build(t, machine{sockets: 2, cores: 2, threads: 1, online: "2-3"}))
	checkCounts(t, m, 2, 1, 2, 1)
	for _, c := range m.CPUs {
		if c.Package != 0 || c.L3 != 0 {
			t.Errorf("cpu%d: %+v, want package 0 and L3 0", c.ID, c)
		}
	}
}

// A memory-only node (as with CXL memory) has an empty cpulist.
func TestDiscoverMemoryOnlyNode(t *testing.T) {
	root := build(t, machine{sockets: 1, cores: 2, threads: 1, nodes: []int{0}})
	writeFile(t, root, "devices/system/node/node0/distance", "10 20")
	writeFile(t, root, "devices/system/node/node1/cpulist", "")
	writeFile(t, root, "devices/system/node/node1/distance", "20 10")
	m := discover(t, root)
	checkCounts(t, m, 2, 1, 2, 2)
	checkGroups(t, m, "node", node, []int{0, 1})
	if want := [][]float64{{10, 20}, {20, 10}}; !reflect.DeepEqual(m.Distance, want) {
		t.Errorf("distance %v, want %v", m.Distance, want)
	}
}

// Missing optional files leave information unknown rather than failing.
func TestDiscoverMissingOptional(t *testing.T) {
	root := build(t, machine{
		sockets: 2, cores: 1, threads: 2,
		nodes:    []int{0, 1},
		distance: [][]int{{10, 21}, {21, 10}},
		memKB:    []uint64{1024, 1024},
	})
	for id := range 4 {
		removeAll(t, root, cpuPath(id, "cache"))
		removeAll(t, root, cpuPath(id, "topology"))
	}
	removeAll(t, root, "devices/system/node/node1/distance")
	removeAll(t, root, "devices/system/node/node0/meminfo")
	m := discover(t, root)
	// Without core_id every CPU counts as a core of its own.
	checkCounts(t, m, 4, 1, 4, 2)
	for _, c := range m.CPUs {
		if c.L2 != -1 || c.L3 != -1 {
			t.Errorf("cpu%d: L2 %d, L3 %d; want -1 (unknown)", c.ID, c.L2, c.L3)
		}
	}
	if m.Distance != nil || m.Nodes[0].MemoryBytes != 0 || m.Nodes[1].MemoryBytes != 1<<20 {
		t.Errorf("distance %v, nodes %+v", m.Distance, m.Nodes)
	}
}

// A discovered model survives the topo file format unchanged.
func TestDiscoverSaveLoad(t *testing.T) {
	m := discover(t, build(t, machine{sockets: 2, cores: 2, threads: 2, nodes: []int{0, 1}, distance: [][]int{{10, 21}, {21, 10}}}))
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := topo.Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	m.Format = topo.FormatVersion
	if !reflect.DeepEqual(got, m) {
		t.Errorf("loaded %+v\nwant %+v", got, m)
	}
}
