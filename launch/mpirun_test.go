package launch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRealMPIRun starts the helper under Open MPI's mpirun, when it is
// installed: every rank must detect mpirun, agree on the job id, and
// complete the bootstrap through the rendezvous file.
func TestRealMPIRun(t *testing.T) {
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun is not installed (apt-get install openmpi-bin)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mpirun, "--allow-run-as-root", "--oversubscribe", "-n", "4", os.Args[0], "-test.run=^$")
	tmp := t.TempDir()
	cmd.Env = append(cleanEnv(), helperEnv+"=join", "TMPDIR="+tmp, "GORACE=atexit_sleep_ms=0")
	var errOut strings.Builder
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mpirun: %v\n%s%s", err, out, errOut.String())
	}
	seen := map[string]bool{}
	var job string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 12 || f[0] != "rank" {
			continue
		}
		if f[3] != "4" || f[5] != "mpirun" || f[11] != "data-0,data-1,data-2,data-3" || (job != "" && f[9] != job) {
			t.Errorf("rank line %q: want 4 ranks of mpirun with one job id and the full book", l)
		}
		seen[f[1]], job = true, f[9]
	}
	if len(seen) != 4 || !strings.HasPrefix(job, "ompi-") {
		t.Errorf("%d ranks reported (job %q), want 4:\n%s", len(seen), job, out)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "plexus-*")); len(left) > 0 {
		t.Errorf("rendezvous files left behind: %v", left)
	}
}

// cleanEnv is this process's environment without variables that would
// make the ranks think another launcher started them.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PLEXUS_") && !strings.HasPrefix(kv, "OMPI_") && !strings.HasPrefix(kv, "PMIX_") &&
			!strings.HasPrefix(kv, helperEnv+"=") && !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	return env
}
