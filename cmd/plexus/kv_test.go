package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/kv/kvbench"
)

// kvBinary builds plexus into a temporary directory: the kv job's ranks
// run plexus kv serve, which this test program is not.
func kvBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "plexus")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// kvJob runs plexus run -n 4 BIN kv serve --replicas 3 with a checked
// mixed load on 8 keys and the given --crash, and returns the load
// rank's line, stderr and the exit code.
func kvJob(t *testing.T, bin, crash string) (kvLoadLine, string, int) {
	t.Helper()
	args := []string{"run", "-n", "4", "--timeout", "90s", "--", bin, "kv", "serve", "--replicas", "3",
		"--duration", "1500ms", "--clients", "2", "--keys", "8", "--gets", "50", "--check"}
	if crash != "" {
		args = append(args, "--crash", crash)
	}
	out, errOut, code := plexus(t, args...)
	var line kvLoadLine
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "[3] "); ok {
			if err := json.Unmarshal([]byte(rest), &line); err != nil {
				t.Fatalf("load line %q: %v", l, err)
			}
		}
	}
	return line, errOut, code
}

// TestKVServeFailover runs the store as a job through plexus run and
// crashes the leader (rank 0), the acceptor (rank 1) or the third
// replica a third into the load: every request is answered, the history
// is linearizable for Sets and sequentially consistent for Gets (the
// load rank checks it, so no acknowledged Set was lost), and the crash
// happened.
func TestKVServeFailover(t *testing.T) {
	bin := kvBinary(t)
	crashes := []string{"", "0@500ms", "1@500ms", "2@500ms"}
	if testing.Short() {
		crashes = []string{"1@500ms"}
	}
	for _, crash := range crashes {
		t.Run("crash="+crash, func(t *testing.T) {
			line, errOut, code := kvJob(t, bin, crash)
			if code != exitOK || line.Failed != 0 || line.Ops == 0 || !line.Checked {
				t.Fatalf("exit %d, load %+v\n%s", code, line, errOut)
			}
			if crash != "" && !strings.Contains(errOut, "replica "+crash[:1]+" crashes now") {
				t.Errorf("replica %s did not crash:\n%s", crash[:1], errOut)
			}
		})
	}
}

// TestKVServeMajorityLost crashes two of three replicas: the Sets that
// follow fail with an error (the load rank exits non-zero), and the
// history of what was answered still checks.
func TestKVServeMajorityLost(t *testing.T) {
	line, errOut, code := kvJob(t, kvBinary(t), "0@300ms,2@300ms")
	if code == exitOK || line.Failed == 0 {
		t.Fatalf("exit %d, load %+v: want failed requests and a failed job\n%s", code, line, errOut)
	}
	if !strings.Contains(errOut, "no replica answered") || strings.Contains(errOut, "violates") {
		t.Errorf("stderr should name the unavailable store and no violation:\n%s", errOut)
	}
}

// TestBenchKVJSON runs both benchmarks briefly and checks the rows and
// the plots.
func TestBenchKVJSON(t *testing.T) {
	bin := kvBinary(t)
	saved := kvServeProg
	kvServeProg = func() ([]string, error) { return []string{bin, "kv", "serve"}, nil }
	t.Cleanup(func() { kvServeProg = saved })
	prefix := filepath.Join(t.TempDir(), "kv")
	out := mustRun(t, "bench", "kv", "--duration", "300ms", "--replicas", "2,3", "--clients", "2", "--json", "--svg", prefix)
	var rows []kvbench.Row
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rows) != 8 {
		t.Fatalf("%d rows, want 2 benches × 2 replica counts × 2 impls:\n%s", len(rows), out)
	}
	for _, r := range rows {
		if r.OpsPerS <= 0 || r.P50us <= 0 || r.P99us < r.P50us || r.Clients != 2 || (r.Impl != "tree" && r.Impl != "sequential") {
			t.Errorf("implausible row %+v", r)
		}
	}
	for _, f := range []string{"agree-throughput", "agree-p99", "kv-throughput", "kv-p99"} {
		if b, err := os.ReadFile(prefix + "-" + f + ".svg"); err != nil || !strings.Contains(string(b), "sequential") {
			t.Errorf("plot %s: %v", f, err)
		}
	}
}
