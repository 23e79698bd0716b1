package hwloc

import (
	"reflect"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
)

// small is a hand-written two-package topology: one SMT core on package 0
// (v2 L2Cache type), two cores on package 1 (old generic Cache type), and
// a gp-indexed, permuted, asymmetric NUMA latency matrix split over two
// u64values elements.
const small = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x0000000f" complete_cpuset="0x0000000f" allowed_cpuset="0x0000000f" nodeset="0x00000003" complete_nodeset="0x00000003" allowed_nodeset="0x00000003" gp_index="1">
    <info name="HostName" value="tiny"/>
    <info name="DMIProductName" value="Tiny Box "/>
    <object type="Package" os_index="0" cpuset="0x00000003" nodeset="0x00000001" gp_index="2">
      <info name="CPUModel" value="Tiny CPU  "/>
      <object type="NUMANode" os_index="0" cpuset="0x00000003" nodeset="0x00000001" gp_index="3" local_memory="1024"/>
      <object type="L2Cache" cpuset="0x00000003" gp_index="4" depth="2">
        <object type="Core" os_index="0" cpuset="0x00000003" gp_index="5">
          <object type="PU" os_index="1" cpuset="0x00000002" gp_index="7"/>
          <object type="PU" os_index="0" cpuset="0x00000001" gp_index="6"/>
        </object>
      </object>
    </object>
    <object type="Package" os_index="1" cpuset="0x0000000c" nodeset="0x00000002" gp_index="8">
      <object type="NUMANode" os_index="1" cpuset="0x0000000c" nodeset="0x00000002" gp_index="9" local_memory="2048"/>
      <object type="Cache" cpuset="0x0000000c" gp_index="10" depth="2" cache_type="0">
        <object type="Core" os_index="0" cpuset="0x00000004" gp_index="11">
          <object type="PU" os_index="2" cpuset="0x00000004" gp_index="12"/>
        </object>
        <object type="Core" os_index="1" cpuset="0x00000008" gp_index="13">
          <object type="PU" os_index="3" cpuset="0x00000008" gp_index="14"/>
        </object>
      </object>
      <object type="PCIDev" gp_index="15"><object type="PU" os_index="9"/></object>
    </object>
  </object>
  <distances2 type="NUMANode" nbobjs="2" kind="9" name="NUMABandwidth" indexing="os">
    <indexes length="4">0 1</indexes>
    <u64values length="12">1 2 3</u64values>
  </distances2>
  <distances2 type="NUMANode" nbobjs="2" kind="5" name="NUMALatency" indexing="gp">
    <indexes length="4">9 3</indexes>
    <u64values length="6">10 21 </u64values>
    <u64values length="5">22 10</u64values>
  </distances2>
  <distances2hetero nbobjs="1" kind="25" name="NVLinkBandwidth"/>
</topology>
`

// flat has no Package, Core or cache objects, and infinite allowed sets.
const flat = `<topology version="2.1">
  <object type="Machine" cpuset="0x00000007" allowed_cpuset="0xf...f" allowed_nodeset="0xf...f">
    <object type="NUMANode" os_index="0" cpuset="0x00000007"/>
    <object type="Group"><object type="Group">
      <object type="PU" os_index="2"/><object type="PU" os_index="0"/>
    </object></object>
    <object type="PU" os_index="1"/>
  </object>
</topology>`

func readString(t *testing.T, doc string, opt Options) *topo.Model {
	t.Helper()
	m, err := Read(strings.NewReader(doc), opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSmall(t *testing.T) {
	m := readString(t, small, Options{})
	want := []topo.CPU{
		{ID: 0, Package: 0, Core: 0, Node: 0, L2: 0, L3: -1},
		{ID: 1, Package: 0, Core: 0, Node: 0, L2: 0, L3: -1},
		{ID: 2, Package: 1, Core: 1, Node: 1, L2: 1, L3: -1},
		{ID: 3, Package: 1, Core: 2, Node: 1, L2: 1, L3: -1},
	}
	if !reflect.DeepEqual(m.CPUs, want) {
		t.Errorf("CPUs = %+v, want %+v", m.CPUs, want)
	}
	if nodes := []topo.Node{{OSIndex: 0, MemoryBytes: 1024}, {OSIndex: 1, MemoryBytes: 2048}}; !reflect.DeepEqual(m.Nodes, nodes) {
		t.Errorf("Nodes = %+v, want %+v", m.Nodes, nodes)
	}
	// Row gp 9 (node 1) is "10 21", row gp 3 (node 0) is "22 10".
	if d := [][]float64{{10, 22}, {21, 10}}; !reflect.DeepEqual(m.Distance, d) {
		t.Errorf("Distance = %v, want %v", m.Distance, d)
	}
	p := m.Provenance
	if m.Name != "tiny" || p.Host != "tiny" || p.CPUModel != "Tiny CPU" || p.Source != "hwloc" || !strings.HasSuffix(p.Notes, "; DMIProductName=Tiny Box") {
		t.Errorf("Name %q, Provenance %+v", m.Name, p)
	}
}

func TestFlat(t *testing.T) {
	m := readString(t, flat, Options{})
	want := []topo.CPU{
		{ID: 0, Package: 0, Core: 1, Node: 0, L2: -1, L3: -1},
		{ID: 1, Package: 0, Core: 2, Node: 0, L2: -1, L3: -1},
		{ID: 2, Package: 0, Core: 0, Node: 0, L2: -1, L3: -1},
	}
	if !reflect.DeepEqual(m.CPUs, want) || m.Distance != nil || m.Name != "hwloc" {
		t.Errorf("CPUs = %+v, Distance %v, Name %q; want %+v, no distances, hwloc", m.CPUs, m.Distance, m.Name, want)
	}
}

// TestAllowedSubset restricts to package 0: the matrix shrinks to 1×1.
func TestAllowedSubset(t *testing.T) {
	doc := strings.Replace(small, `allowed_cpuset="0x0000000f"`, `allowed_cpuset="0x00000003"`, 1)
	doc = strings.Replace(doc, `allowed_nodeset="0x00000003"`, `allowed_nodeset="0x1"`, 1)
	m := readString(t, doc, Options{})
	if m.N() != 2 || len(m.Nodes) != 1 || !reflect.DeepEqual(m.Distance, [][]float64{{10}}) {
		t.Errorf("got %d CPUs, nodes %v, distance %v; want 2, [0], [[10]]", m.N(), m.Nodes, m.Distance)
	}
	if !strings.Contains(m.Provenance.Notes, "allowed subset: 2 of 4 PUs, 1 of 2 NUMA nodes") {
		t.Errorf("Notes %q do not mention the restriction", m.Provenance.Notes)
	}
	if m := readString(t, doc, Options{IncludeDisallowed: true}); m.N() != 4 || len(m.Nodes) != 2 {
		t.Errorf("IncludeDisallowed: %d CPUs, %d nodes, want 4, 2", m.N(), len(m.Nodes))
	}
}

// TestDisallowedHomeNode: CPUs 2 and 3 are allowed but their node is not;
// they keep it, since every CPU needs its local node.
func TestDisallowedHomeNode(t *testing.T) {
	doc := strings.Replace(small, `allowed_nodeset="0x00000003"`, `allowed_nodeset="0x1"`, 1)
	m := readString(t, doc, Options{})
	if m.N() != 4 || len(m.Nodes) != 2 || m.CPUs[3].Node != 1 || len(m.Distance) != 2 {
		t.Errorf("got %d CPUs, nodes %v, cpu3 %+v, distance %v", m.N(), m.Nodes, m.CPUs[3], m.Distance)
	}
}

// TestDistancesNotCovering: a matrix missing a model node is dropped with
// a note rather than guessed.
func TestDistancesNotCovering(t *testing.T) {
	doc := strings.Replace(small, `nbobjs="2" kind="5"`, `nbobjs="1" kind="5"`, 1)
	doc = strings.Replace(doc, `<indexes length="4">9 3</indexes>`, `<indexes length="1">9</indexes>`, 1)
	doc = strings.Replace(doc, `10 21 </u64values>`, `10</u64values>`, 1)
	doc = strings.Replace(doc, `22 10</u64values>`, `</u64values>`, 1)
	m := readString(t, doc, Options{})
	if m.Distance != nil || !strings.Contains(m.Provenance.Notes, "does not cover node 0") {
		t.Errorf("Distance %v, Notes %q", m.Distance, m.Provenance.Notes)
	}
}

// TestLatencyWithoutName: an unnamed latency matrix (kind 6, user-given)
// is used when there is no NUMALatency one; the bandwidth one never is.
func TestLatencyWithoutName(t *testing.T) {
	doc := strings.Replace(small, `kind="5" name="NUMALatency"`, `kind="6"`, 1)
	if m := readString(t, doc, Options{}); len(m.Distance) != 2 {
		t.Errorf("unnamed latency matrix not used: %v", m.Distance)
	}
	doc = strings.Replace(small, `kind="5" name="NUMALatency"`, `kind="9"`, 1)
	if m := readString(t, doc, Options{}); m.Distance != nil {
		t.Errorf("bandwidth matrix used as distances: %v", m.Distance)
	}
}
