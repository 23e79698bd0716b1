package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/plexus-hpc/plexus/internal/svg"
)

// writeBFSSVGs writes path's base with -teps.svg (TEPS of each search)
// and -levels.svg (the median time of each level over the searches).
func writeBFSSVGs(w io.Writer, path string, r bfsReport) error {
	base := strings.TrimSuffix(path, ".svg")
	series := fmt.Sprintf("%d ranks", r.Ranks)
	teps := svg.Series{Name: series}
	for i, s := range r.PerSearch {
		teps.X = append(teps.X, float64(i+1))
		teps.Y = append(teps.Y, s.TEPS)
	}
	levels := svg.Series{Name: series}
	for l, med := range medianLevels(r.PerSearch) {
		levels.X = append(levels.X, float64(l))
		levels.Y = append(levels.Y, med)
	}
	title := fmt.Sprintf("Graph500 BFS, SCALE %d, edgefactor %d, %s", r.Scale, r.EdgeFactor, r.Mode)
	plots := map[string]svg.LinePlot{
		base + "-teps.svg":   {Title: title, XLabel: "search", YLabel: "TEPS", Series: []svg.Series{teps}},
		base + "-levels.svg": {Title: title, XLabel: "level", YLabel: "median time (s)", Series: []svg.Series{levels}, LogY: true},
	}
	for _, name := range slices.Sorted(mapKeys(plots)) {
		if err := writeFile(name, func(f io.Writer) error { return svg.WriteLinePlot(f, plots[name]) }); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s\n", name)
	}
	return nil
}

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
