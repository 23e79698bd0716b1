package survey

import (
	"fmt"
	"io"
	"strings"

	"github.com/plexus-hpc/plexus/tree"
)

// Options bound a survey run.
type Options struct {
	// Spread is how many group sizes to survey on machines over 64 CPUs.
	Spread int
	// ExactGroups is how many random 8-CPU groups per machine to check
	// against the exact optimum; 0 skips the check.
	ExactGroups int
	// Seed makes the random groups repeatable.
	Seed uint64
	// Only, when not empty, keeps machines whose name contains it.
	Only string
	// Progress, when not nil, is told each machine's name as it starts,
	// and the sweep's progress within it.
	Progress func(machine string, done, total int)
}

// Report surveys every machine under dataDir and writes markdown tables:
// per machine and op, the mean and worst ratio of Best to the best static
// tree and to the adaptive tree, then the gaps to the exact optimum. It
// returns the points and gaps for callers that check them.
func Report(w io.Writer, dataDir string, opt Options) ([]Point, []Gap, error) {
	ms, err := Machines(dataDir)
	if err != nil {
		return nil, nil, err
	}
	var points []Point
	var gaps []Gap
	fmt.Fprintln(w, "| machine | CPUs | op | sizes | best/static mean | worst | best/adaptive mean | worst | best slower |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, m := range ms {
		if opt.Only != "" && !strings.Contains(m.Name, opt.Only) {
			continue
		}
		pts, gs, err := one(m, opt)
		if err != nil {
			return nil, nil, err
		}
		writeMachine(w, m, pts)
		points, gaps = append(points, pts...), append(gaps, gs...)
	}
	writeTotals(w, points, gaps)
	return points, gaps, nil
}

func one(m Machine, opt Options) ([]Point, []Gap, error) {
	var progress func(done, total int)
	if opt.Progress != nil {
		progress = func(done, total int) { opt.Progress(m.Name, done, total) }
		progress(0, 1)
	}
	pts, err := Survey(m, Sizes(m.Model.N(), max(opt.Spread, 2)), progress)
	if err != nil || opt.ExactGroups == 0 {
		return pts, nil, err
	}
	gs, err := ExactGaps(m, 8, opt.ExactGroups, opt.Seed)
	return pts, gs, err
}

func writeMachine(w io.Writer, m Machine, pts []Point) {
	for _, op := range tree.Ops() {
		sel := byOp(pts, op)
		s := Summarize(sel)
		fmt.Fprintf(w, "| %s | %d | %v | %d | %.3f | %.3f | %.3f | %.3f | %d |\n", m.Name, m.Model.N(), op, len(sel),
			s.MeanVsStatic, s.WorstVsStatic, s.MeanVsAdaptive, s.WorstVsAdaptive, s.Violations)
	}
}

func writeTotals(w io.Writer, points []Point, gaps []Gap) {
	fmt.Fprintln(w)
	for _, op := range tree.Ops() {
		s := Summarize(byOp(points, op))
		fmt.Fprintf(w, "All machines, %v: %d points; best/static mean %.3f, worst %.3f; best/adaptive mean %.3f, worst %.3f; best slower in %d\n",
			op, s.Points, s.MeanVsStatic, s.WorstVsStatic, s.MeanVsAdaptive, s.WorstVsAdaptive, s.Violations)
	}
	if len(gaps) == 0 {
		return
	}
	sum, worst := 0.0, 0.0
	for _, g := range gaps {
		sum, worst = sum+g.Ratio(), max(worst, g.Ratio())
	}
	fmt.Fprintf(w, "\nRandom 8-CPU groups: %d; best/exact broadcast mean %.4f, worst %.4f\n", len(gaps), sum/float64(len(gaps)), worst)
}

// byOp returns the points of one operation.
func byOp(points []Point, op tree.Op) []Point {
	var sel []Point
	for _, p := range points {
		if p.Op == op {
			sel = append(sel, p)
		}
	}
	return sel
}
