package smelt

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const machineDB = "../../data/smelt/machinedb/intel_xeon_e5_v2_2x10"

func TestReadMachineDB(t *testing.T) {
	m, err := ReadMachineDB(machineDB, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.N() != 20 || len(m.Nodes) != 2 || m.Name != "intel_xeon_e5_v2_2x10" {
		t.Fatalf("got %d CPUs, %d nodes, name %q", m.N(), len(m.Nodes), m.Name)
	}
	p, c, n := m.Counts()
	if p != 2 || c != 20 || n != 2 {
		t.Errorf("Counts = %d packages, %d cores, %d nodes; want 2, 20, 2", p, c, n)
	}
	pv := m.Provenance
	if pv.Source != "smelt" || pv.FreqGHz != 2.5 || !strings.Contains(pv.CPUModel, "E5-2670 v2") {
		t.Errorf("provenance = %+v", pv)
	}
	for i, cpu := range m.CPUs {
		if cpu.ID != i || cpu.Node != i/10 || cpu.Package != i/10 {
			t.Errorf("cpu %d = %+v", i, cpu)
		}
	}
	// Values straight from the files (cycles).
	for _, tc := range []struct {
		name           string
		mean, sd       [][]float64
		src, dst       int
		wantMean, want float64
	}{
		{"send", m.Send.Mean, m.Send.SD, 13, 10, 61.8175, 23.881557},
		{"send", m.Send.Mean, m.Send.SD, 0, 10, 207.044167, 98.770979},
		{"recv", m.Recv.Mean, m.Recv.SD, 6, 16, 779.117014, 167.560416},
		{"recv", m.Recv.Mean, m.Recv.SD, 10, 0, 659.155833, 146.321747},
		{"recv", m.Recv.Mean, m.Recv.SD, 0, 10, 760.653681, 171.664092},
	} {
		got := Cycles(tc.mean[tc.src][tc.dst], pv.FreqGHz)
		gotSD := Cycles(tc.sd[tc.src][tc.dst], pv.FreqGHz)
		if math.Abs(got-tc.wantMean) > 1e-9 || math.Abs(gotSD-tc.want) > 1e-9 {
			t.Errorf("%s[%d][%d] = %v±%v cycles, want %v±%v", tc.name, tc.src, tc.dst, got, gotSD, tc.wantMean, tc.want)
		}
	}
	if m.Send.Mean[3][3] != 0 || m.Recv.Mean[3][3] != 0 {
		t.Error("diagonal not zero")
	}
}

func TestReadMachineDBFreqOverride(t *testing.T) {
	m, err := ReadMachineDB(machineDB, Options{FreqGHz: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m.Provenance.FreqGHz != 1 || m.Send.Mean[13][10] != 61.8175 {
		t.Errorf("freq %v, send[13][10] = %v ns", m.Provenance.FreqGHz, m.Send.Mean[13][10])
	}
}

// copyDB copies the sample machine into a temp dir, applying edit to the
// named file's lines.
func copyDB(t *testing.T, file string, edit func([]string) []string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "m")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{LscpuFile, LikwidFile, CpuinfoFile, SendFile, RecvFile} {
		b, err := os.ReadFile(filepath.Join(machineDB, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == file {
			lines := edit(strings.Split(strings.TrimRight(string(b), "\n"), "\n"))
			b = []byte(strings.Join(lines, "\n") + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadMachineDBErrors(t *testing.T) {
	set := func(i int, s string) func([]string) []string {
		return func(l []string) []string { l[i] = s; return l }
	}
	for _, tc := range []struct {
		file string
		edit func([]string) []string
		want string
	}{
		{SendFile, func(l []string) []string { return l[1:] }, "incomplete: 379 of 380 pairs"},
		{SendFile, func(l []string) []string { return append(l, l[4]) }, "nsend_send:381: duplicate pair"},
		{SendFile, set(2, "0 2 NaN 1"), "nsend_send:3: mean"},
		{RecvFile, set(5, "0 2 -3 1"), "nsend_receive:6: mean"},
		{RecvFile, set(5, "0 20 3 1"), "nsend_receive:6: CPU 20 is not"},
		{RecvFile, set(5, "4 4 3 1"), "nsend_receive:6: pair 4 -> 4"},
		{RecvFile, set(5, "4 5 3"), "nsend_receive:6: want 4 fields"},
		{LikwidFile, set(14, "20\t\t0\t\t0\t\t0"), "likwid.txt:15: CPU 20 is not in lscpu.txt"},
		{LscpuFile, set(4, "CPU(s):  21"), "hold 20 CPUs"},
		{LscpuFile, set(22, "NUMA node1 CPU(s):     9-19"), "lscpu.txt:23: CPU 9 also in node 0"},
	} {
		dir := copyDB(t, tc.file, tc.edit)
		_, err := ReadMachineDB(dir, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "smelt: ") {
			t.Errorf("%s edited: err = %v, want %q", tc.file, err, tc.want)
		}
	}
}

func TestReadMachineDBWithoutLikwid(t *testing.T) {
	dir := copyDB(t, "", nil)
	if err := os.Remove(filepath.Join(dir, LikwidFile)); err != nil {
		t.Fatal(err)
	}
	m, err := ReadMachineDB(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p, c, n := m.Counts(); p != 2 || c != 20 || n != 2 {
		t.Errorf("Counts = %d, %d, %d", p, c, n)
	}
	_, err = ReadMachineDB(t.TempDir(), Options{})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty dir: err = %v", err)
	}
}

func TestDeriveCoresSMT(t *testing.T) {
	dir := copyDB(t, LscpuFile, func(l []string) []string {
		for i, s := range l {
			if strings.HasPrefix(s, "Thread(s) per core") {
				l[i] = "Thread(s) per core:    2"
			}
		}
		return l
	})
	os.Remove(filepath.Join(dir, LikwidFile))
	m, err := ReadMachineDB(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.CPUs[0].Core != m.CPUs[10].Core || m.CPUs[0].Core == m.CPUs[1].Core {
		t.Errorf("siblings not c, c+N/2: %+v %+v %+v", m.CPUs[0], m.CPUs[1], m.CPUs[10])
	}
}

func TestParseCPUList(t *testing.T) {
	got, err := parseCPUList("0-2,8,10-11")
	if err != nil || len(got) != 6 || got[3] != 8 || got[5] != 11 {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "3-1", "a", "1-"} {
		if _, err := parseCPUList(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if g := nominalGHz("Intel(R) Xeon(R) CPU E5-2670 v2 @ 2.50GHz"); g != 2.5 {
		t.Errorf("nominalGHz = %v", g)
	}
}
