package main

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/graph"
)

// TestGraphBFSJob runs plexus graph bfs as the 2 and 3 ranks of a job
// under plexus run, at a small scale: every search validates and the
// JSON has the fields the issue names.
func TestGraphBFSJob(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs jobs")
	}
	bin := benchBinary(t)
	for _, n := range []string{"2", "3"} {
		out := mustRun(t, "run", "-n", n, "--", bin, "graph", "bfs", "--scale", "10", "--nbfs", "8", "--json", "--quiet")
		out = strings.TrimPrefix(strings.ReplaceAll(out, "\n[0] ", "\n"), "[0] ")
		var rep bfsReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !rep.Validated || rep.Ranks != len(rep.PeakRSS) || rep.Ranks < 2 || rep.NBFS != 8 || rep.Scale != 10 ||
			rep.HarmonicTEPS <= 0 || rep.MedianTEPS <= 0 || rep.ConstructionS <= 0 || len(rep.PerSearch) != 8 {
			t.Errorf("ranks %s: %+v", n, rep)
		}
	}
}

// TestGraphBFSImplsJob runs both implementations as 1, 2 and 3 ranks
// under plexus run: every search validates, the report names the
// implementation, and both count the same edges per search (the same
// roots and components).
func TestGraphBFSImplsJob(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs jobs")
	}
	bin := benchBinary(t)
	for _, n := range []string{"1", "2", "3"} {
		nedges := map[string][]int64{}
		for _, impl := range []string{"loops", "tasks"} {
			out := mustRun(t, "run", "-n", n, "--", bin, "graph", "bfs", "--scale", "9", "--nbfs", "4", "--impl", impl, "--json", "--quiet")
			out = strings.TrimPrefix(strings.ReplaceAll(out, "\n[0] ", "\n"), "[0] ")
			var rep bfsReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !rep.Validated || rep.Impl != impl || rep.Ranks != len(rep.PeakRSS) || len(rep.PerSearch) != 4 {
				t.Fatalf("ranks %s, impl %s: %+v", n, impl, rep)
			}
			for _, s := range rep.PerSearch {
				nedges[impl] = append(nedges[impl], s.NEdge)
			}
		}
		if !slices.Equal(nedges["loops"], nedges["tasks"]) {
			t.Errorf("ranks %s: edges per search: loops %v, tasks %v", n, nedges["loops"], nedges["tasks"])
		}
	}
}

func TestGraphBFSBadInput(t *testing.T) {
	for _, args := range [][]string{{"--scale", "0"}, {"--scale", "40"}, {"--mode", "sideways"}, {"--nbfs", "0"}, {"--impl", "threads"}} {
		if _, errOut, code := plexus(t, append([]string{"graph", "bfs"}, args...)...); code != exitUsage {
			t.Errorf("graph bfs %v: exit %d, want %d\n%s", args, code, exitUsage, errOut)
		}
	}
	if _, errOut, code := plexus(t, "graph", "bfs", "--scale", "31"); code != exitFailure || !strings.Contains(errOut, "MiB") {
		t.Errorf("graph bfs --scale 31: exit %d, want a memory estimate\n%s", code, errOut)
	}
}

func TestGraphBFSAlone(t *testing.T) {
	out := mustRun(t, "graph", "bfs", "--scale", "8", "--nbfs", "4", "--quiet")
	for _, want := range []string{"SCALE:", "bfs  median_TEPS:", "bfs  harmonic_mean_TEPS:", "bfs  harmonic_stddev_TEPS:",
		"median_nedge:", "bfs  firstquartile_time:", "validated:                      true"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestGraphBCJob runs plexus graph bc on 2 ranks under plexus run and
// checks its report: the sources asked for and ten top vertices in
// order.
func TestGraphBCJob(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs jobs")
	}
	bin := benchBinary(t)
	out := mustRun(t, "run", "-n", "2", "--", bin, "graph", "bc", "--scale", "9", "--rmat", "--k", "8", "--json")
	out = strings.TrimPrefix(strings.ReplaceAll(out, "\n[0] ", "\n"), "[0] ")
	var rep bcReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Ranks != 2 || rep.Sources != 8 || rep.EdgeFactor != 8 || rep.Graph != "rmat" || len(rep.Top) != 10 || rep.TEPS <= 0 {
		t.Fatalf("%+v", rep)
	}
	for i := 1; i < len(rep.Top); i++ {
		if rep.Top[i].BC > rep.Top[i-1].BC {
			t.Errorf("top not in order: %+v", rep.Top)
		}
	}
	if _, _, code := plexus(t, "graph", "bc", "--k", "-1"); code != exitUsage {
		t.Errorf("--k -1: exit %d", code)
	}
}

// TestGraphBCImplsJob runs plexus graph bc with both implementations as
// 1, 2 and 3 ranks of jobs under plexus run, with every vertex a source
// (exact scores) on a small R-MAT graph: the report names the
// implementation, and its ten top vertices and scores are those of the
// sequential Brandes on the same graph, within 1e-9 relative.
func TestGraphBCImplsJob(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs jobs")
	}
	k, err := graph.NewKronecker(7, 8, 0.55, 0.1, 0.1, 4)
	if err != nil {
		t.Fatal(err)
	}
	scores := serialBrandes(k)
	var all []graph.Score
	for v, x := range scores {
		all = append(all, graph.Score{Vertex: int64(v), BC: x})
	}
	want := graph.Top(all, 10)
	bin := benchBinary(t)
	for _, n := range []string{"1", "2", "3"} {
		for _, impl := range []string{"loops", "tasks"} {
			out := mustRun(t, "run", "-n", n, "--", bin, "graph", "bc", "--scale", "7", "--rmat", "--seed", "4", "--k", "0", "--impl", impl, "--json")
			out = strings.TrimPrefix(strings.ReplaceAll(out, "\n[0] ", "\n"), "[0] ")
			var rep bcReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if rep.Impl != impl || strconv.Itoa(rep.Ranks) != n || rep.Sources != 1<<7 || len(rep.Top) != len(want) {
				t.Fatalf("ranks %s, impl %s: %+v", n, impl, rep)
			}
			for i, s := range rep.Top {
				// Scores that tie may come in either order.
				tol := 1e-9 * want[i].BC
				if s.Vertex < 0 || s.Vertex >= int64(len(scores)) || math.Abs(s.BC-want[i].BC) > tol || math.Abs(scores[s.Vertex]-s.BC) > tol {
					t.Errorf("ranks %s, impl %s: top %v, serial %v", n, impl, rep.Top, want)
					break
				}
			}
		}
	}
	if _, _, code := plexus(t, "graph", "bc", "--impl", "threads"); code != exitUsage {
		t.Errorf("--impl threads: exit %d", code)
	}
}

// serialBrandes is the betweenness of k's graph by the sequential
// Brandes from every vertex.
func serialBrandes(k *graph.Kronecker) []float64 {
	var edges [][2]int64
	for i := range k.Edges() {
		u, v := k.Edge(i)
		edges = append(edges, [2]int64{u, v})
	}
	whole := graph.FromEdges(0, k.Vertices(), edges)
	sources := make([]int64, k.Vertices())
	for v := range sources {
		sources[v] = int64(v)
	}
	return graph.SerialBrandes(&whole, sources)
}

// TestGraphSVGs: --svg writes the two BFS plots and the UTS plot, one
// line per rank count, with the run's scale in the title.
func TestGraphSVGs(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "graph", "bfs", "--scale", "8", "--nbfs", "4", "--quiet", "--svg", dir+"/bfs.svg")
	mustRun(t, "uts", "--tree", "T1", "-d", "5", "--svg", dir+"/uts.svg")
	for name, want := range map[string]string{"bfs-teps.svg": "SCALE 8", "bfs-levels.svg": "median time", "uts.svg": "nodes per rank"} {
		b, err := os.ReadFile(dir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if !strings.Contains(s, "<svg") || !strings.Contains(s, want) || (name != "uts.svg" && !strings.Contains(s, "1 ranks")) {
			t.Errorf("%s lacks %q:\n%.300s", name, want, b)
		}
	}
}

// TestGraphSVGWith: --svg-with draws a 1-rank run's JSON beside a 2-rank
// job's in both plots; files of another graph, files that are not a
// run's JSON and --svg-with without --svg are refused.
func TestGraphSVGWith(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs jobs")
	}
	dir := t.TempDir()
	one := dir + "/1.json"
	if err := os.WriteFile(one, []byte(mustRun(t, "graph", "bfs", "--scale", "8", "--nbfs", "4", "--quiet", "--json")), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := benchBinary(t)
	mustRun(t, "run", "-n", "2", "--", bin, "graph", "bfs", "--scale", "8", "--nbfs", "4", "--quiet", "--svg", dir+"/bfs.svg", "--svg-with", one)
	for _, name := range []string{"bfs-teps.svg", "bfs-levels.svg"} {
		b, err := os.ReadFile(dir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(b); !strings.Contains(s, "1 ranks") || !strings.Contains(s, "2 ranks") {
			t.Errorf("%s lacks a line per rank count:\n%.400s", name, b)
		}
	}
	junk := dir + "/junk.json"
	os.WriteFile(junk, []byte("not json"), 0o600)
	for _, args := range [][]string{
		{"--scale", "9", "--svg", dir + "/x.svg", "--svg-with", one}, // another graph
		{"--scale", "8", "--svg", dir + "/x.svg", "--svg-with", junk},
		{"--scale", "8", "--svg", dir + "/x.svg", "--svg-with", dir + "/missing.json"},
		{"--scale", "8", "--svg-with", one},
	} {
		if _, errOut, code := plexus(t, append([]string{"graph", "bfs"}, args...)...); code != exitUsage || !strings.Contains(errOut, "--svg-with") {
			t.Errorf("graph bfs %v: exit %d, want %d naming --svg-with\n%s", args, code, exitUsage, errOut)
		}
	}
}

// TestBFSSeriesNamesImpl: a Tasks run's lines say so, so that runs of
// both implementations drawn together (--svg-with) can be told apart;
// Loops runs and reports older than --impl keep the plain name.
func TestBFSSeriesNamesImpl(t *testing.T) {
	for impl, want := range map[string]string{"": "2 ranks", "loops": "2 ranks", "tasks": "2 ranks, tasks"} {
		r := bfsReport{Ranks: 2, Impl: impl, PerSearch: []bfsOne{{TEPS: 1, LevelSeconds: []float64{0.1}}}}
		if teps, levels := bfsSeries(r); teps.Name != want || levels.Name != want {
			t.Errorf("impl %q: series %q and %q, want %q", impl, teps.Name, levels.Name, want)
		}
	}
}
