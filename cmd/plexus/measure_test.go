package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/topo"
)

// needTwoCPUs skips tests that measure when the process may not use two
// CPUs (or this is not Linux).
func needTwoCPUs(t *testing.T) []int {
	t.Helper()
	cpus, err := affinity.Allowed()
	if err != nil || len(cpus) < 2 {
		t.Skipf("measuring needs 2 allowed CPUs: %v %v", cpus, err)
	}
	return cpus
}

// TestMachineMeasure measures quickly, writes the model, and uses it.
func TestMachineMeasure(t *testing.T) {
	cpus := needTwoCPUs(t)
	path := filepath.Join(t.TempDir(), "m.json")
	list := formatCPUList(cpus[:2])
	out, errOut, code := plexus(t, "machine", "measure", "--quick", "--reps", "4", "--cpus", list, "-o", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantAll(t, "measure output", out, "source    measured", "costs     measured", "2 PUs",
		"send cost (ns)", "receive cost (ns)", "round trip (ns)", "latency under load (ns)",
		"measured 2 ordered pairs × 4 repetitions (batch 8", "loaded phase (every unordered pair, all CPUs busy)", "wrote "+path)
	wantAll(t, "measure progress", errOut, "100%", "ETA", "done in")
	m, err := topo.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.N() != 2 || !m.HasCosts() || m.Latency == nil || m.Provenance.Source != "measured" || m.Provenance.CostsEstimated || m.Send.SD == nil {
		t.Errorf("model file: %d CPUs, costs %v, provenance %+v", m.N(), m.HasCosts(), m.Provenance)
	}
	tr := mustRun(t, "tree", "--model", path, "--topology", "adaptive")
	wantAll(t, "tree on the measured model", tr, "costs measured", "adaptive tree", "2 members", "simulated latency")
	wantAll(t, "machine --model", mustRun(t, "machine", "--model", path), "source    measured", "costs     measured")
}

func TestMachineMeasureUsage(t *testing.T) {
	cpus := needTwoCPUs(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--reps", "-1"}, "--reps: -1 is negative"},
		{[]string{"--reps", "x"}, "invalid value"},
		{[]string{"--cpus", "0-9999"}, "is not in model"},
		{[]string{"--cpus", "0-99999"}, "100000 CPUs, more than topo.MaxCPUs = 65536"},
		{[]string{"--cpus", formatCPUList(cpus[:1])}, "need at least 2 CPUs"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		args := append([]string{"machine", "measure"}, c.args...)
		out, errOut, code := plexus(t, args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("plexus %s: exit %d, stderr %q; want 2 and %q", strings.Join(args, " "), code, errOut, c.want)
		}
	}
	out := mustRun(t, "help", "machine", "measure")
	wantAll(t, "help machine measure", out, "usage: plexus machine measure", "-quick", "-reps N", "-cpus LIST", "-o FILE")
}

// TestMachineMeasureNoLoaded skips the loaded phase: a model without
// latency under load, and no loaded matrices printed.
func TestMachineMeasureNoLoaded(t *testing.T) {
	cpus := needTwoCPUs(t)
	path := filepath.Join(t.TempDir(), "m.json")
	out := mustRun(t, "machine", "measure", "--reps", "4", "--no-loaded", "--cpus", formatCPUList(cpus[:2]), "-o", path)
	if strings.Contains(out, "latency under load") || strings.Contains(out, "loaded phase") {
		t.Errorf("--no-loaded printed the loaded phase:\n%s", out)
	}
	m, err := topo.ReadFile(path)
	if err != nil || m.Latency != nil || !m.HasCosts() {
		t.Fatalf("model file: %v, latency %v", err, m.Latency)
	}
}
