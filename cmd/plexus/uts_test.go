package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/uts"
)

// TestUTSJob runs plexus uts on 2 ranks under plexus run: the counts
// equal the sequential search's, and every node is stored and visited
// once across the ranks.
func TestUTSJob(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs jobs")
	}
	bin := benchBinary(t)
	args := []string{"-t", "0", "-b", "200", "-q", "0.12", "-m", "8", "-r", "3"}
	p := uts.T3()
	p.B0, p.Q, p.M, p.Seed = 200, 0.12, 8, 3
	want := uts.Search(p)
	prof := filepath.Join(t.TempDir(), "cpu")
	out := mustRun(t, append([]string{"run", "-n", "2", "--", bin, "uts", "--json", "--runs", "2", "--cpuprofile", prof}, args...)...)
	out = strings.TrimPrefix(strings.ReplaceAll(out, "\n[0] ", "\n"), "[0] ")
	var rep utsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Nodes != want.Nodes || rep.Leaves != want.Leaves || rep.Depth != want.Depth || rep.Ranks != 2 {
		t.Fatalf("%+v, want %+v on 2 ranks", rep, want)
	}
	var stored, visited int64
	for r := range 2 {
		stored += rep.Stored[r]
		visited += rep.Visited[r]
	}
	if stored != want.Nodes || visited != want.Nodes || rep.NodesPerS <= 0 || len(rep.TraverseAll) != 2 {
		t.Errorf("stored %d, visited %d of %d nodes; %+v", stored, visited, want.Nodes, rep)
	}
	for r := range 2 {
		if fi, err := os.Stat(fmt.Sprintf("%s.%d", prof, r)); err != nil || fi.Size() == 0 {
			t.Errorf("rank %d's --cpuprofile: %v", r, err)
		}
	}
}

func TestUTSFlags(t *testing.T) {
	out := mustRun(t, "uts", "--tree", "T1", "-d", "5")
	if !strings.Contains(out, "-t 1 -a 3 -d 5 -b 4") {
		t.Errorf("--tree T1 -d 5 did not start from T1 and change its depth:\n%s", out)
	}
	for _, args := range [][]string{{"-t", "7"}, {"--tree", "T9"}, {"-q", "1.5"}, {"--runs", "0"}, {"--workers", "-1"}, {"--flush-age", "-1ms"}} {
		if _, errOut, code := plexus(t, append([]string{"uts"}, args...)...); code != exitUsage {
			t.Errorf("uts %v: exit %d, want %d\n%s", args, code, exitUsage, errOut)
		}
	}
}
