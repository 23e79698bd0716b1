package smelt

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const bfDir = "../../data/smelt/barrelfish"

func TestBarrelfishMachines(t *testing.T) {
	got, err := BarrelfishMachines(bfDir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"gottardo_NUMA", "gottardo_noNUMA", "gruyere_NUMA", "gruyere_noNUMA",
		"nos_noNUMA", "sbrinz_NUMA", "sbrinz_noNUMA", "tomme_NUMA", "tomme_noNUMA",
		"ziger_NUMA", "ziger_noNUMA",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BarrelfishMachines = %v\nwant %v", got, want)
	}
}

func TestReadBarrelfishAll(t *testing.T) {
	names, _ := BarrelfishMachines(bfDir)
	for _, name := range names {
		mach, variant := SplitBarrelfishName(name)
		m, err := ReadBarrelfish(bfDir, mach, variant, Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		info, _ := LookupMachine(mach)
		_, cores, nodes := m.Counts()
		if m.N() != info.Cores || nodes != info.Nodes || cores != info.Cores/info.ThreadsPerCore {
			t.Errorf("%s: %d CPUs, %d cores, %d nodes; want %+v", name, m.N(), cores, nodes, info)
		}
		if m.Name != name || m.Provenance.Source != "barrelfish" || m.Provenance.FreqGHz != info.FreqGHz {
			t.Errorf("%s: name %q provenance %+v", name, m.Name, m.Provenance)
		}
	}
}

func TestReadBarrelfishValues(t *testing.T) {
	m, err := ReadBarrelfish(bfDir, "gruyere", "NUMA", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// receive_gruyere_NUMA: "1	0	322.793650794	7.68870276209"
	if got := Cycles(m.Recv.Mean[1][0], 2.0); got != 322.793650794 {
		t.Errorf("recv[1][0] = %v cycles", got)
	}
	// send_gruyere_NUMA: "2	0	354.079365079	2.95092983625"
	if got := Cycles(m.Send.SD[2][0], 2.0); got != 2.95092983625 {
		t.Errorf("send sd[2][0] = %v cycles", got)
	}
	if m.CPUs[3].Node != 0 || m.CPUs[4].Node != 1 || m.CPUs[31].Node != 7 {
		t.Errorf("gruyere nodes not blocks of 4: %+v", m.CPUs[:5])
	}
	// The layout must agree with the data: in-node receives are cheaper on
	// average than cross-node ones on every complete machine.
	names, _ := BarrelfishMachines(bfDir)
	for _, name := range names {
		mach, variant := SplitBarrelfishName(name)
		m, _ := ReadBarrelfish(bfDir, mach, variant, Options{})
		if in, out := classMeans(m.Recv.Mean, m.SameNode); in >= out {
			t.Errorf("%s: in-node receive %.0f ns >= cross-node %.0f ns", name, in, out)
		}
	}
}

func classMeans(a [][]float64, same func(i, j int) bool) (in, out float64) {
	var nin, nout float64
	for i := range a {
		for j, v := range a[i] {
			switch {
			case i == j:
			case same(i, j):
				in, nin = in+v, nin+1
			default:
				out, nout = out+v, nout+1
			}
		}
	}
	return in / nin, out / nout
}

func TestTommeSiblings(t *testing.T) {
	m, err := ReadBarrelfish(bfDir, "tomme", "NUMA", Options{})
	if err != nil {
		t.Fatal(err)
	}
	sib := func(i, j int) bool { return m.CPUs[i].Core == m.CPUs[j].Core }
	local := func(i, j int) bool { return m.SameNode(i, j) && !sib(i, j) }
	s, _ := classMeans(m.Recv.Mean, sib)
	l, _ := classMeans(m.Recv.Mean, local)
	if m.CPUs[6].Core != m.CPUs[7].Core || s*4 > l {
		t.Errorf("siblings: core(6)=%d core(7)=%d, sibling %.1f ns vs local %.1f ns",
			m.CPUs[6].Core, m.CPUs[7].Core, s, l)
	}
}

func TestReadBarrelfishIncomplete(t *testing.T) {
	_, err := ReadBarrelfish(bfDir, "brie", "", Options{})
	var ie *IncompleteError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "incomplete: 12 of 56 pairs") {
		t.Errorf("brie: err = %v", err)
	}
	// gottardo without variant has a send file but no receive file.
	if _, err := ReadBarrelfish(bfDir, "gottardo", "", Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("gottardo: err = %v", err)
	}
	if _, err := ReadBarrelfish(bfDir, "emmentaler", "NUMA", Options{}); err == nil || !strings.Contains(err.Error(), "unknown Barrelfish machine") {
		t.Errorf("unknown machine: err = %v", err)
	}
	// A truncated copy of a complete matrix.
	dir := t.TempDir()
	for _, f := range []string{"send_sbrinz_NUMA", "receive_sbrinz_NUMA"} {
		b, err := os.ReadFile(filepath.Join(bfDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if f[0] == 'r' {
			lines := strings.SplitAfter(string(b), "\n")
			b = []byte(strings.Join(lines[:len(lines)-3], "")) // drop 2 pairs
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = ReadBarrelfish(dir, "sbrinz", "NUMA", Options{})
	if err == nil || !strings.Contains(err.Error(), "incomplete: 238 of 240 pairs") {
		t.Errorf("truncated sbrinz: err = %v", err)
	}
}
