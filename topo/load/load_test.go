package load

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	machineDB = "../../data/smelt/machinedb/intel_xeon_e5_v2_2x10"
	bfDir     = "../../data/smelt/barrelfish"
	hwlocXML  = "../../data/hwloc/x86-AMD-17h-Zen-2xEpyc-7451.xml"
)

func TestOpenFormats(t *testing.T) {
	json := filepath.Join(t.TempDir(), "m.json")
	m, err := Open(machineDB)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WriteFile(json); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec, name, source string
		n                  int
	}{
		{machineDB, "intel_xeon_e5_v2_2x10", "smelt", 20},
		{json, "intel_xeon_e5_v2_2x10", "smelt", 20},
		{bfDir + "/send_gruyere_NUMA", "gruyere_NUMA", "barrelfish", 32},
		{bfDir + "/receive_ziger_noNUMA", "ziger_noNUMA", "barrelfish", 24},
		{bfDir + ":tomme_NUMA", "tomme_NUMA", "barrelfish", 16},
		{hwlocXML, "x86-AMD-17h-Zen-2xEpyc-7451", "hwloc", 0},
	} {
		m, err := Open(tc.spec)
		if err != nil {
			t.Errorf("%s: %v", tc.spec, err)
			continue
		}
		if m.Name != tc.name || m.Provenance.Source != tc.source || tc.n > 0 && m.N() != tc.n {
			t.Errorf("%s: name %q source %q with %d CPUs", tc.spec, m.Name, m.Provenance.Source, m.N())
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(junk, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{dir, junk, "../../data/smelt"} {
		_, err := Open(spec)
		if !errors.Is(err, ErrUnknownFormat) || !strings.HasPrefix(err.Error(), "load: "+spec+": not a model file") {
			t.Errorf("%s: err = %v", spec, err)
		}
	}
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: err = %v", err)
	}
	if _, err := Open(bfDir + ":brie"); err == nil || !strings.Contains(err.Error(), "incomplete: 12 of 56 pairs") {
		t.Errorf("brie: err = %v", err)
	}
}
