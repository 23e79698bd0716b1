package main

import (
	"strings"
	"testing"
)

// TestTourRanksWithoutOpenMPI: with no mpirun on the PATH the 2-rank job
// runs Plexus alone, on shared memory, and says why the openmpi column is
// empty. It needs no Go toolchain: the ranks run from the plexus binary.
func TestTourRanksWithoutOpenMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a 2-rank job")
	}
	useBuiltRank(t)
	t.Setenv("PATH", t.TempDir()) // no mpirun, and no go: the ranks run from the plexus binary
	t.Setenv("PLEXUS_TRANSPORT", "")
	var out strings.Builder
	if err := tourRanks(&out, 4); err != nil {
		t.Fatal(err)
	}
	wantAll(t, "tour's job", out.String(), "== 4. a 2-rank job on this machine (shared memory)",
		"latency      2     8", "openmpi: not run: mpirun not found (install openmpi-bin)\n")
}

func TestLocalTransport(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	for v, want := range map[string]string{"": "shm", "auto": "shm", "tcp": "tcp", " shm ": "shm"} {
		if got, _ := localTransport(env(v)); got != want {
			t.Errorf("PLEXUS_TRANSPORT=%q: %s, want %s", v, got, want)
		}
	}
}
