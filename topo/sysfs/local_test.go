package sysfs_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/topo/sysfs"
)

func TestLocal(t *testing.T) {
	if _, err := os.Stat("/sys/devices/system/cpu/online"); err != nil {
		if _, lerr := sysfs.Local(); lerr == nil {
			t.Error("Local succeeded without /sys")
		}
		t.Skipf("no sysfs here: %v", err)
	}
	m, err := sysfs.Local()
	if err != nil {
		t.Fatal(err)
	}
	// The model holds every online CPU; NumCPU counts only those in the
	// process's affinity mask (a cpuset may hide some), never more.
	if m.N() < 1 || m.N() < runtime.NumCPU() {
		t.Errorf("Local found %d CPUs, runtime.NumCPU() = %d", m.N(), runtime.NumCPU())
	}
	if m.Provenance.Source != "sysfs" || m.HasCosts() {
		t.Errorf("provenance %+v, has costs %v", m.Provenance, m.HasCosts())
	}
	if _, err := time.Parse(time.DateOnly, m.Provenance.Date); err != nil {
		t.Errorf("date %q: %v", m.Provenance.Date, err)
	}
	if err := m.Validate(); err != nil {
		t.Error(err)
	}
	p, c, n := m.Counts()
	t.Logf("%s (%s): %d CPUs, %d packages, %d cores, %d nodes", m.Name, m.Provenance.CPUModel, m.N(), p, c, n)
}

func TestCPUModel(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"x86", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Fancy CPU @ 3.00GHz\n\nprocessor\t: 1\nmodel name\t: Other\n", "Fancy CPU @ 3.00GHz"},
		{"arm", "processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n", ""},
		{"empty", "", ""},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := sysfs.CPUModel(path); got != tc.want {
			t.Errorf("%s: cpu model %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := sysfs.CPUModel(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("missing file: cpu model %q, want empty", got)
	}
}
