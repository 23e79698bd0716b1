package smelt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
)

// TestReadMachineDBRefusesOversized checks that machine databases that used
// to exhaust memory (a CPU count or list of a billion, or cost matrices of
// 20,000 CPUs) are refused before anything that size is allocated.
func TestReadMachineDBRefusesOversized(t *testing.T) {
	for _, tc := range []struct {
		name, lscpu string
		msg         string
	}{
		{"cpu count", "CPU(s): 1000000000\n", "lscpu.txt:1: CPU(s): topo: input too large: 1000000000 CPUs, more than topo.MaxCPUs = 65536"},
		{"node list", "CPU(s): 4\nNUMA node0 CPU(s): 0-1000000000\n", "CPU 1000000000 in list \"0-1000000000\" is past topo.MaxCPUID"},
		{"node list count", "CPU(s): 4\nNUMA node0 CPU(s): 0-65536\n", "65537 CPUs, more than topo.MaxCPUs = 65536"},
		{"node lists together", "CPU(s): 4\nNUMA node0 CPU(s): 0-39999\nNUMA node1 CPU(s): 40000-79999\n", "NUMA node lists: topo: input too large: 80000 CPUs"},
		{"cost matrices", "CPU(s): 20000\nCPU MHz: 2000\n", "20000 CPUs, more than topo.MaxCostCPUs = 2048"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range map[string]string{LscpuFile: tc.lscpu, SendFile: "", RecvFile: ""} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, err := ReadMachineDB(dir, Options{})
			if !errors.Is(err, topo.ErrTooLarge) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v; want topo.ErrTooLarge with %q", err, tc.msg)
			}
		})
	}
}

// TestReadMachineDBRefusesDevice checks that a pairwise file that is a
// device is refused rather than read for ever.
func TestReadMachineDBRefusesDevice(t *testing.T) {
	dir := copyDB(t, "", nil)
	send := filepath.Join(dir, SendFile)
	if err := os.Remove(send); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", send); err != nil {
		t.Fatal(err)
	}
	_, err := ReadMachineDB(dir, Options{})
	if !errors.Is(err, topo.ErrNotRegular) || !strings.Contains(err.Error(), "pairwise-nsend_send is a character device") {
		t.Fatalf("err = %v; want topo.ErrNotRegular naming the file", err)
	}
}

// FuzzParseCPUList checks that no list panics or expands past the limits.
func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-9,20-29", "0-1000000000", "5", "3-1,a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := parseCPUList(s)
		if err == nil && len(ids) > topo.MaxCPUs {
			t.Fatalf("%q gave %d CPUs", s, len(ids))
		}
		for _, id := range ids {
			if id < 0 || id > topo.MaxCPUID {
				t.Fatalf("%q gave CPU %d", s, id)
			}
		}
	})
}
