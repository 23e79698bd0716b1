package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/uts"
)

// The applications run under every launcher a user has (issue 17): their
// ranks find each other from the launcher's variables, as a plexus run
// job's do. plexus run is TestGraphBFSJob's and TestUTSJob's; mpirun's
// and srun's are here.

// appRun is one application run and what its JSON must show.
type appRun struct {
	name  string
	args  []string
	check func(t *testing.T, out string, ranks int)
}

// appRuns returns a small BFS and a small UTS tree, each checked against
// what the job must report on ranks ranks.
func appRuns(bin string) []appRun {
	p := uts.T3()
	p.B0, p.Q, p.M, p.Seed = 200, 0.12, 8, 3
	want := uts.Search(p)
	return []appRun{
		{"graph bfs", []string{bin, "graph", "bfs", "--scale", "10", "--nbfs", "4", "--json", "--quiet"}, func(t *testing.T, out string, ranks int) {
			var rep bfsReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !rep.Validated || rep.Ranks != ranks || rep.NBFS != 4 || rep.HarmonicTEPS <= 0 {
				t.Errorf("%+v, want %d ranks and 4 validated searches", rep, ranks)
			}
		}},
		{"uts", []string{bin, "uts", "--json", "-t", "0", "-b", "200", "-q", "0.12", "-m", "8", "-r", "3"}, func(t *testing.T, out string, ranks int) {
			var rep utsReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if rep.Nodes != want.Nodes || rep.Leaves != want.Leaves || rep.Depth != want.Depth || rep.Ranks != ranks {
				t.Errorf("%+v, want %+v on %d ranks", rep, want, ranks)
			}
		}},
	}
}

// mpiTags matches the tag mpirun --tag-output puts on a line of stdout:
// [job,rank]<stdout>:
var mpiTags = regexp.MustCompile(`(?m)^\[\d+,(\d+)\]<stdout>:`)

// rank0 keeps the lines of rank 0's output, without their "[0] " tags.
func rank0(out string) string {
	var b strings.Builder
	for l := range strings.SplitSeq(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "[0] "); ok {
			b.WriteString(rest + "\n")
		}
	}
	return b.String()
}

// TestAppsUnderMPIRun runs graph bfs and uts as 2 ranks of Open MPI's
// mpirun on this host, when it is installed.
func TestAppsUnderMPIRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs jobs")
	}
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun is not installed (apt-get install openmpi-bin)")
	}
	for _, app := range appRuns(benchBinary(t)) {
		t.Run(app.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, mpirun, append([]string{"--allow-run-as-root", "--oversubscribe", "--tag-output", "-n", "2"}, app.args...)...)
			cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
			var errOut strings.Builder
			cmd.Stderr = &errOut
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("mpirun: %v\n%s%s", err, out, errOut.String())
			}
			app.check(t, rank0(mpiTags.ReplaceAllString(string(out), "[$1] ")), 2)
		})
	}
}
