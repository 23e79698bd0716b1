package measure

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/topo"
)

// fourCPUs is two packages of two cores, one NUMA node each, with the
// nodes listed in the opposite order to the packages.
func fourCPUs() *topo.Model {
	return &topo.Model{
		Format: topo.FormatVersion, Name: "four",
		Provenance: topo.Provenance{Host: "h", CPUModel: "cpu", Source: "sysfs", Date: "2026-01-01", CostsEstimated: true},
		CPUs: []topo.CPU{
			{ID: 0, Package: 0, Core: 0, Node: 1, L2: 0, L3: 0},
			{ID: 1, Package: 0, Core: 1, Node: 1, L2: 1, L3: 0},
			{ID: 2, Package: 1, Core: 2, Node: 0, L2: 2, L3: 1},
			{ID: 3, Package: 1, Core: 3, Node: 0, L2: -1, L3: 1},
		},
		Nodes:    []topo.Node{{OSIndex: 1}, {OSIndex: 0, MemoryBytes: 1 << 30}},
		Distance: [][]float64{{10, 21}, {21, 10}},
	}
}

func twoCPUResult(cpus ...int) *Result {
	r := newResult(cpus, Config{Reps: 10, Batch: 8}.withDefaults())
	r.Send.Mean[0][1], r.Send.SD[0][1], r.Send.Mean[1][0], r.Send.SD[1][0] = 60, 1, 70, 2
	r.Recv.Mean[0][1], r.Recv.SD[0][1], r.Recv.Mean[1][0], r.Recv.SD[1][0] = 200, 3, 210, 4
	r.Start = time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)
	r.Elapsed = 1500 * time.Millisecond
	return r
}

func TestMergeRestricts(t *testing.T) {
	m := fourCPUs()
	before := fourCPUs()
	got, err := Merge(m, twoCPUResult(3, 0))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, before) {
		t.Error("Merge modified its model")
	}
	want := []topo.CPU{
		{ID: 3, Package: 0, Core: 0, Node: 0, L2: -1, L3: 0},
		{ID: 0, Package: 1, Core: 1, Node: 1, L2: 0, L3: 1},
	}
	if !reflect.DeepEqual(got.CPUs, want) {
		t.Errorf("CPUs %+v, want %+v", got.CPUs, want)
	}
	if !reflect.DeepEqual(got.Nodes, []topo.Node{{OSIndex: 1}, {OSIndex: 0, MemoryBytes: 1 << 30}}) {
		t.Errorf("Nodes %+v", got.Nodes)
	}
	if !reflect.DeepEqual(got.Distance, [][]float64{{10, 21}, {21, 10}}) {
		t.Errorf("Distance %v", got.Distance)
	}
	if got.Send.Mean[0][1] != 60 || got.Recv.SD[1][0] != 4 || got.Send.Mean[1][1] != 0 {
		t.Errorf("costs not copied: send %v recv %v", got.Send, got.Recv)
	}
	p := got.Provenance
	if p.Source != "measured" || p.CostsEstimated || p.Date != "2026-11-22T10:30:00Z" || p.Host != "h" || p.CPUModel != "cpu" {
		t.Errorf("provenance %+v", p)
	}
	if !strings.Contains(p.Notes, "10 reps, batch 8, largest 10% dropped") {
		t.Errorf("notes %q", p.Notes)
	}
}

func TestMergeOneNode(t *testing.T) {
	got, err := Merge(fourCPUs(), twoCPUResult(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Nodes) != 1 || got.Nodes[0].OSIndex != 0 || !reflect.DeepEqual(got.Distance, [][]float64{{10}}) {
		t.Errorf("nodes %+v distance %v, want only os node 0", got.Nodes, got.Distance)
	}
	if pk, cores, nodes := got.Counts(); pk != 1 || cores != 2 || nodes != 1 {
		t.Errorf("counts %d %d %d", pk, cores, nodes)
	}
}

func TestMergeSavesAndLoads(t *testing.T) {
	got, err := Merge(fourCPUs(), twoCPUResult(0, 2))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := got.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := topo.Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, got) {
		t.Errorf("round trip changed the model:\n%+v\n%+v", back, got)
	}
}

func TestMergeMissingCPU(t *testing.T) {
	_, err := Merge(fourCPUs(), twoCPUResult(1, 8))
	if err == nil || !strings.Contains(err.Error(), "measured CPUs [8] are not in model four") {
		t.Errorf("Merge with CPU 8 = %v", err)
	}
}

func TestMergeBadResult(t *testing.T) {
	r := twoCPUResult(0, 1)
	r.CPUs = []int{0, 1, 2}
	if _, err := Merge(fourCPUs(), r); err == nil {
		t.Error("Merge accepted 3 CPUs with 2×2 matrices")
	}
}
