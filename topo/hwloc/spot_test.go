package hwloc

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestIrregularGroupsAllowed: this file's root has allowed_cpuset
// 0x0000ffff and allowed_nodeset 0x3, so by default (like lstopo without
// --disallowed) only packages 0-1 appear; SUMMARY.txt counts the complete
// topology, which IncludeDisallowed gives.
func TestIrregularGroupsAllowed(t *testing.T) {
	const name = "64intel64-3g2n+2n-irregulargroups+pci.xml"
	m := load(t, name, Options{})
	pkg, core, numa := m.Counts()
	if m.N() != 16 || pkg != 2 || core != 16 || numa != 2 || distinct(m, 3) != 2 {
		t.Errorf("allowed: %d PUs, %d packages, %d cores, %d nodes, %d L3; want 16, 2, 16, 2, 2", m.N(), pkg, core, numa, distinct(m, 3))
	}
	if d := [][]float64{{10, 50}, {50, 10}}; !reflect.DeepEqual(m.Distance, d) {
		t.Errorf("allowed distance %v, want %v", m.Distance, d)
	}
	if m.Provenance.Host != "condor" || m.CPUs[15].Node != 1 || m.CPUs[15].Package != 1 {
		t.Errorf("host %q, cpu 15 %+v", m.Provenance.Host, m.CPUs[15])
	}
	m = load(t, name, Options{IncludeDisallowed: true})
	pkg, core, numa = m.Counts()
	if m.N() != 64 || pkg != 8 || core != 64 || numa != 8 {
		t.Errorf("complete: %d PUs, %d packages, %d cores, %d nodes; want 64, 8, 64, 8", m.N(), pkg, core, numa)
	}
	if d := m.Distance; d[0][1] != 50 || d[2][7] != 79 || d[4][0] != 65 || d[3][7] != 79 || d[3][5] != 65 {
		t.Errorf("complete distance %v", d)
	}
}

func TestSpotChecks(t *testing.T) {
	m := load(t, "64intel64-fakeKNL-SNC4-hybrid.xml", Options{})
	// PU 0 is local to DRAM node 0 and MCDRAM node 7 alike; DRAM wins.
	if m.Nodes[m.CPUs[0].Node].OSIndex != 0 || m.Nodes[7].MemoryBytes != 2147483648 || m.Provenance.CPUModel != "06/57" {
		t.Errorf("KNL: cpu0 %+v, nodes %+v, model %q", m.CPUs[0], m.Nodes, m.Provenance.CPUModel)
	}
	m = load(t, "16amd64-4distances.xml", Options{})
	if m.Nodes[m.CPUs[0].Node].OSIndex != 1 || m.CPUs[2].Package != 1 || m.CPUs[0].L3 != -1 {
		t.Errorf("16amd64: cpu0 %+v cpu2 %+v", m.CPUs[0], m.CPUs[2])
	}
	m = load(t, "generated-from-sysfs/256ppc-8n8s4t.xml", Options{})
	var osIdx []int
	for _, n := range m.Nodes {
		osIdx = append(osIdx, n.OSIndex)
	}
	if want := []int{0, 1, 4, 5, 8, 9, 12, 13}; !reflect.DeepEqual(osIdx, want) || len(m.Distance) != 8 {
		t.Errorf("ppc nodes %v, want %v", osIdx, want)
	}
	m = load(t, "generated-from-sysfs/256ia64-64n2s2c.xml", Options{})
	for _, c := range m.CPUs {
		if c.L2 != -1 || c.L3 != -1 {
			t.Fatalf("ia64 has no caches, got %+v", c)
		}
	}
	m = load(t, "x86-AMD-17h-Zen-2xEpyc-7451.xml", Options{})
	if m.Provenance.CPUModel != "AMD EPYC 7451 24-Core Processor" {
		t.Errorf("CPUModel %q not trimmed", m.Provenance.CPUModel)
	}
}

// TestPUNodeset cross-checks the node chosen from NUMANode cpusets against
// each PU's own nodeset attribute, for every data file.
func TestPUNodeset(t *testing.T) {
	for _, name := range xmlFiles(t) {
		f, err := os.Open(filepath.Join(dataDir, name))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		sets := map[int]bitmap{}
		puNodesets(t, &doc.Objects[0], sets)
		m := load(t, name, Options{IncludeDisallowed: true})
		for _, c := range m.CPUs {
			if node := m.Nodes[c.Node].OSIndex; !sets[c.ID].has(node) {
				t.Errorf("%s: cpu %d put on node %d outside its nodeset", name, c.ID, node)
			}
		}
	}
}

func puNodesets(t *testing.T, o *xmlObject, sets map[int]bitmap) {
	if o.Type == "PU" {
		os, err := o.index("os_index", o.OSIndex)
		if err == nil {
			sets[os], err = o.bitmap("nodeset", o.NodeSet, "")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range o.Children {
		puNodesets(t, &o.Children[i], sets)
	}
}
