package topo

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// twoNode is a 2-node machine with SMT: 2 packages × 2 cores × 2 threads.
func twoNode() *Model {
	m := &Model{Name: "fixture", Provenance: Provenance{Source: "test", Host: "h", Date: "2026-11-21"},
		Nodes:    []Node{{OSIndex: 0, MemoryBytes: 1 << 30}, {OSIndex: 1}},
		Distance: [][]float64{{10, 21}, {21, 10}}}
	for id := 0; id < 8; id++ {
		m.CPUs = append(m.CPUs, CPU{ID: id, Package: id / 4, Core: id / 2, Node: id / 4, L2: id / 2, L3: id / 4})
	}
	m.Send, m.Recv = NewCosts(8, true), NewCosts(8, true)
	for i := range 8 {
		for j := range 8 {
			if i != j {
				m.Send.Mean[i][j], m.Send.SD[i][j] = float64(10+i+j), 0.5
				m.Recv.Mean[i][j], m.Recv.SD[i][j] = float64(40+3*i+j), 1.25
			}
		}
	}
	return m
}

func TestSaveLoadRoundTrip(t *testing.T) {
	m := twoNode()
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	m.Format = FormatVersion
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip changed the model:\n got %+v\nwant %+v", got, m)
	}
	path := filepath.Join(t.TempDir(), "m.json")
	if err := m.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if again, err := ReadFile(path); err != nil || !reflect.DeepEqual(again, m) {
		t.Fatalf("file round trip: %v", err)
	}
}

func TestLoadRejectsBadFiles(t *testing.T) {
	for name, c := range map[string]struct {
		in   string
		want error
		msg  string
	}{
		"version":   {`{"format": 99, "cpus": [{"id":0}], "nodes": [{}]}`, ErrFormat, "format 99"},
		"no format": {`{}`, ErrFormat, `no "format" field`},
		"no cpus":   {`{"format": 1, "nodes": [{}]}`, ErrInvalid, "no CPUs"},
		"bad node":  {`{"format": 1, "cpus": [{"id":0,"node":3}], "nodes": [{}]}`, ErrInvalid, "node 3 out of range"},
		"dup cpu":   {`{"format": 1, "cpus": [{"id":0},{"id":0}], "nodes": [{}]}`, ErrInvalid, "listed twice"},
		"ragged":    {`{"format": 1, "cpus": [{"id":0},{"id":1}], "nodes": [{}], "send": {"mean": [[0,1],[1]]}, "recv": {"mean": [[0,1],[1,0]]}}`, ErrInvalid, "row 1 has 1"},
		"negative":  {`{"format": 1, "cpus": [{"id":0},{"id":1}], "nodes": [{}], "send": {"mean": [[0,-1],[1,0]]}, "recv": {"mean": [[0,1],[1,0]]}}`, ErrInvalid, "not a finite non-negative"},
		"half":      {`{"format": 1, "cpus": [{"id":0}], "nodes": [{}], "send": {"mean": [[0]]}}`, ErrInvalid, "both"},
		"unknown":   {`{"format": 1, "cpus": [{"id":0}], "nodes": [{}], "colour": 3}`, nil, "unknown field"},
		"not json":  {`hello`, nil, "decoding"},
		"distances": {`{"format": 1, "cpus": [{"id":0}], "nodes": [{}], "numa_distance": [[10,20]]}`, ErrInvalid, "numa_distance"},
	} {
		_, err := Load(strings.NewReader(c.in))
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want %v containing %q", name, err, c.want, c.msg)
		}
	}
}

func TestModelQueries(t *testing.T) {
	m := twoNode()
	if p, c, n := m.Counts(); p != 2 || c != 4 || n != 2 {
		t.Errorf("counts %d %d %d", p, c, n)
	}
	if i, ok := m.Index(5); !ok || i != 5 {
		t.Errorf("Index(5) = %d %v", i, ok)
	}
	if _, ok := m.Index(42); ok {
		t.Error("Index(42) found")
	}
	if !m.SameNode(0, 3) || m.SameNode(3, 4) {
		t.Error("SameNode wrong")
	}
	if m.NodeDistance(0, 7) != 21 {
		t.Error("distance")
	}
	m.Distance = nil
	if m.NodeDistance(0, 7) != 20 || m.NodeDistance(0, 1) != 10 {
		t.Error("default distance")
	}
}
