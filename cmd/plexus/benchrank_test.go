package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/bench"
)

// benchBinary builds this command, as a user would, into a temporary
// directory and returns the binary's path: go build uses the package's
// default.pgo, as for any build of plexus.
func benchBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "plexus")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// useBuiltRank makes the benchmarks run their ranks from a plexus binary
// built for the test: this test program is not plexus, so the ranks cannot
// run from os.Executable as they do for a user.
func useBuiltRank(t *testing.T) {
	t.Helper()
	bin := benchBinary(t)
	saved := selfRank
	selfRank = func(b string) ([]string, error) { return []string{bin, "bench", b, rankVerb}, nil }
	t.Cleanup(func() { selfRank = saved })
}

// TestBenchRankVerb: the rank programs answer as "bench p2p rank" and
// "bench gas rank", refuse bad options with an exit status of 1 before
// they join a job, and stay out of plexus help's list.
func TestBenchRankVerb(t *testing.T) {
	for _, b := range []string{"p2p", "gas"} {
		out, errOut, code := plexus(t, "bench", b, rankVerb, "-bench", "pingpong")
		if code != exitFailure || !strings.Contains(errOut, "bad options") || out != "" {
			t.Errorf("bench %s rank -bench pingpong: exit %d\n%s", b, code, errOut)
		}
		if _, errOut, code := plexus(t, "bench", b, rankVerb, "-h"); code != exitOK || !strings.Contains(errOut, "-transport") {
			t.Errorf("bench %s rank -h: exit %d\n%s", b, code, errOut)
		}
	}
	if help := mustRun(t, "help"); slices.Contains(strings.Fields(help), rankVerb) {
		t.Errorf("help lists the rank verb:\n%s", help)
	}
	if _, _, code := plexus(t, "bench", "p2p", "ranks"); code != exitUsage {
		t.Errorf("bench p2p ranks: exit %d, want a usage error", code)
	}
}

// TestBenchSelfContained runs a plexus binary the way a cluster node
// would: from a directory outside the source tree, with a PATH without the
// Go toolchain; with Open MPI on the PATH it compiles the peers from the
// sources in the binary, and with nothing on the PATH it runs Plexus alone
// and says so, for bench p2p and bench gas; bench coll needs nothing.
func TestBenchSelfContained(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plexus and runs jobs")
	}
	bin := benchBinary(t)
	p2p := []string{"bench", "p2p", "--quick", "--ranks", "2", "--cases", "latency", "--sizes", "8", "--peers", "--json"}
	t.Run("openmpi", func(t *testing.T) {
		path := pathWithout(t, "go")
		if err := lookIn(path, "mpicc", "mpirun"); err != nil {
			t.Skipf("Open MPI, without the Go toolchain: %v", err)
		}
		var res []bench.P2PResult
		runAlone(t, bin, path, &res, p2p...)
		checkPlexusRow(t, res)
		if len(res) != 2 || res[1].Impl != "openmpi" || res[1].Value <= 0 || res[0].Note != "" {
			t.Errorf("want a plexus and an openmpi row: %+v", res)
		}
	})
	t.Run("plexus-alone", func(t *testing.T) {
		empty := t.TempDir()
		var res []bench.P2PResult
		runAlone(t, bin, empty, &res, p2p...)
		checkPlexusRow(t, res)
		if len(res) != 1 || !strings.Contains(res[0].Note, "openmpi not run: mpirun not found") {
			t.Errorf("want one plexus row with a note: %+v", res)
		}
		var gas []bench.GasResult
		runAlone(t, bin, empty, &gas, "bench", "gas", "--quick", "--json")
		if len(gas) != 5 || gas[0].Bench != "am" || gas[0].Value <= 0 || gas[4].Note != res[0].Note {
			t.Errorf("want Plexus's five gas rows with the note: %+v", gas)
		}
		var coll []bench.Result
		runAlone(t, bin, empty, &coll, "bench", "coll", "--quick", "--members", "2", "--json")
		if _, ok := bench.Find(coll, "barrier", "team-best", 2); !ok {
			t.Errorf("no team barrier in %+v", coll)
		}
		// --no-pgo builds from source, which needs what this host lacks.
		cmd := exec.Command(bin, "bench", "p2p", "--no-pgo", "--quick", "--ranks", "2")
		cmd.Dir, cmd.Env = t.TempDir(), append(os.Environ(), "PATH="+empty)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "--no-pgo: bench: no rank program") {
			t.Errorf("--no-pgo without Go: %v\n%s", err, out)
		}
	})
}

// runAlone runs bin with args in an empty directory with path as PATH and
// decodes its JSON output into rows.
func runAlone(t *testing.T, bin, path string, rows any, args ...string) {
	t.Helper()
	if lookIn(path, "go") == nil {
		t.Fatalf("PATH %s has a go command", path)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PATH="+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), rows); err != nil {
		t.Fatalf("%v: %v\n%s\n%s", args, err, stdout.String(), stderr.String())
	}
}

// checkPlexusRow checks the first row: the latency of the plexus binary's
// own rank program, built with the profile.
func checkPlexusRow(t *testing.T, res []bench.P2PResult) {
	t.Helper()
	if len(res) == 0 {
		t.Fatal("no rows")
	}
	if p := res[0]; p.Impl != "plexus" || p.Bench != "latency" || p.Size != 8 || p.Value <= 0 || !p.PGO {
		t.Errorf("plexus row %+v", p)
	}
}

// pathWithout is this process's PATH less every directory that holds
// name.
func pathWithout(t *testing.T, name string) string {
	t.Helper()
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if lookIn(dir, name) != nil {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// lookIn returns an error unless every name is an executable in path.
func lookIn(path string, names ...string) error {
	for _, name := range names {
		found := false
		for _, dir := range filepath.SplitList(path) {
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				found = true
				break
			}
		}
		if !found {
			return &exec.Error{Name: name, Err: exec.ErrNotFound}
		}
	}
	return nil
}
