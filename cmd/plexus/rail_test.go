//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/plexus-hpc/plexus/rail"
)

// railsScript adds shaped rails between two hosts of the cluster.
const railsScript = "../../testdata/cluster/rails.sh"

// TestRailSample samples a 1 Gbit and a 500 Mbit rail between two
// namespace hosts through plexus rail sample: the table has both rails
// and only those (--rails leaves out the hosts' common network), the
// profile file reads back, and at the largest size, where the shaping
// rules, the first rail is faster than the second.
func TestRailSample(t *testing.T) {
	dir, _, agent := twoHostJob(t, 2)
	if b, err := exec.Command(railsScript, "up", "h1", "h2", "1gbit", "500mbit").CombinedOutput(); err != nil {
		t.Skipf("cannot make rails: %v\n%s", err, b)
	}
	useBuiltRank(t)
	out := filepath.Join(dir, "rails.json")
	stdout, stderr, code := plexus(t, "rail", "sample", "--host", "h1,h2", "--rsh", agent,
		"--rails", "10.252.0.0/16", "--max", "1048576", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	rows := regexp.MustCompile(`(?m)^\[0\] (\d)\s+(10\.252\.\d\.1)>`).FindAllStringSubmatch(stdout, -1)
	if len(rows) != 2 || rows[0][2] != "10.252.1.1" || rows[1][2] != "10.252.2.1" {
		t.Fatalf("want rails 10.252.1.1 and 10.252.2.1 in:\n%s", stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := rail.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(pf.Rails) != 2 {
		t.Fatalf("profile file has %d rails", len(pf.Rails))
	}
	// Shaped at 1 Gbit/s and 500 Mbit/s: about 2. The upper bound is loose
	// because CPU load from other test packages slows the sampling of the
	// slow rail more than the fast one's.
	fast, slow := pf.Rails[0].Bandwidth(1<<20), pf.Rails[1].Bandwidth(1<<20)
	if r := fast / slow; r < 1.3 || r > 4 {
		t.Errorf("1 MiB bandwidths %s and %s bit/s: ratio %.2f, want about 2", strconv.FormatFloat(fast*8, 'g', 3, 64), strconv.FormatFloat(slow*8, 'g', 3, 64), r)
	}
}
