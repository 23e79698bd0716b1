package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/plexus-hpc/plexus/internal/svg"
)

// writeBFSSVGs writes path's base with -teps.svg (TEPS of each search)
// and -levels.svg (the median time of each level over the searches), one
// line per run in runs, in order of rank count; the title is the last
// run's (the others are of the same graph: readBFSReports checks).
func writeBFSSVGs(w io.Writer, path string, runs []bfsReport) error {
	base := strings.TrimSuffix(path, ".svg")
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, func(a, b bfsReport) int { return a.Ranks - b.Ranks })
	var teps, levels []svg.Series
	for _, r := range runs {
		t, l := bfsSeries(r)
		teps, levels = append(teps, t), append(levels, l)
	}
	r := runs[len(runs)-1]
	title := fmt.Sprintf("Graph500 BFS, SCALE %d, edgefactor %d, %s", r.Scale, r.EdgeFactor, r.Mode)
	plots := map[string]svg.LinePlot{
		base + "-teps.svg":   {Title: title, XLabel: "search", YLabel: "TEPS", Series: teps},
		base + "-levels.svg": {Title: title, XLabel: "level", YLabel: "median time (s)", Series: levels, LogY: true},
	}
	for _, name := range slices.Sorted(mapKeys(plots)) {
		if err := writeFile(name, func(f io.Writer) error { return svg.WriteLinePlot(f, plots[name]) }); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s\n", name)
	}
	return nil
}

// bfsSeries is one run's lines: TEPS per search, median time per level.
func bfsSeries(r bfsReport) (teps, levels svg.Series) {
	name := fmt.Sprintf("%d ranks", r.Ranks)
	if r.Impl != "" && r.Impl != "loops" {
		name += ", " + r.Impl // runs of both implementations can share a plot
	}
	teps, levels = svg.Series{Name: name}, svg.Series{Name: name}
	for i, s := range r.PerSearch {
		teps.X = append(teps.X, float64(i+1))
		teps.Y = append(teps.Y, s.TEPS)
	}
	for l, med := range medianLevels(r.PerSearch) {
		levels.X = append(levels.X, float64(l))
		levels.Y = append(levels.Y, med)
	}
	return teps, levels
}

// readBFSReports reads the --json outputs named in list (comma-separated),
// as saved from plexus graph bfs alone or from a job (whose lines may
// carry plexus run's "[R] " tags), and checks that each is of a graph of
// scale and edgefactor, so that the plots compare one graph.
func readBFSReports(list string, scale, edgefactor int) ([]bfsReport, error) {
	var out []bfsReport
	for name := range strings.SplitSeq(list, ",") {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var r bfsReport
		if err := json.Unmarshal([]byte(rankTags.ReplaceAllString(string(b), "")), &r); err != nil {
			return nil, fmt.Errorf("%s: not the JSON of plexus graph bfs --json: %w", name, err)
		}
		if r.Scale != scale || r.EdgeFactor != edgefactor || r.Ranks < 1 || len(r.PerSearch) == 0 {
			return nil, fmt.Errorf("%s: SCALE %d, edgefactor %d, %d ranks, %d searches; this run has SCALE %d, edgefactor %d",
				name, r.Scale, r.EdgeFactor, r.Ranks, len(r.PerSearch), scale, edgefactor)
		}
		out = append(out, r)
	}
	return out, nil
}

// rankTags matches the "[R] " tags plexus run puts before a rank's lines.
var rankTags = regexp.MustCompile(`(?m)^\[\d+\] `)

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// medianLevels returns, for each level, the median of the searches'
// times at that level (over the searches that reached it).
func medianLevels(searches []bfsOne) []float64 {
	var out []float64
	for l := 0; ; l++ {
		var at []float64
		for _, s := range searches {
			if l < len(s.LevelSeconds) {
				at = append(at, max(s.LevelSeconds[l], 1e-9))
			}
		}
		if len(at) == 0 {
			return out
		}
		slices.Sort(at)
		out = append(out, at[len(at)/2])
	}
}

// writeUTSSVG plots the nodes each rank stored and visited.
func writeUTSSVG(w io.Writer, path string, r utsReport) error {
	stored, visited := svg.Series{Name: "stored"}, svg.Series{Name: "visited", Dashed: true}
	for i := range r.Stored {
		stored.X, stored.Y = append(stored.X, float64(i)), append(stored.Y, float64(r.Stored[i]))
		visited.X, visited.Y = append(visited.X, float64(i)), append(visited.Y, float64(r.Visited[i]))
	}
	p := svg.LinePlot{Title: fmt.Sprintf("UTS-Mem %s on %d ranks: nodes per rank", r.Tree, r.Ranks),
		XLabel: "rank", YLabel: "nodes", Series: []svg.Series{stored, visited}}
	if err := writeFile(path, func(f io.Writer) error { return svg.WriteLinePlot(f, p) }); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "wrote %s\n", path)
	return err
}
