package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/plexus-hpc/plexus/internal/svg"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/sysfs"
	"github.com/plexus-hpc/plexus/tree"
)

// sweepSpread is how many sizes the default sweep takes on machines too
// big to do every size from 2 to N quickly.
const (
	sweepEveryUpTo = 64
	sweepSpread    = 12
)

func runSweep(c *cli, o *compareOpts, m *topo.Model) error {
	sizes, err := sweepSizes(m, o.sizes)
	if err != nil {
		return err
	}
	p := newProgress(c.stderr, fmt.Sprintf("sweep %s", m.Name))
	points, err := tree.Sweep(m, sizes, p.update)
	p.finish()
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(c.stdout, sweepToJSON(m, points))
	}
	fmt.Fprintf(c.stdout, "%s: group sizes %s, CPUs round-robin over %d NUMA nodes, %s\n",
		m.Name, formatCPUList(sizes), len(m.Nodes), costNote(m))
	for _, op := range tree.Ops() {
		if err := writeSweepTable(c.stdout, op, points); err != nil {
			return err
		}
	}
	if o.svg != "" {
		return writeSweepSVGs(c.stdout, o.svg, m, points)
	}
	return nil
}

// sweepSizes parses --sizes, or returns the default: every size 2..N, or
// about sweepSpread sizes from 2 to N on big machines, plus the node count
// (one CPU per node, where Smelt saw sequential trees win).
func sweepSizes(m *topo.Model, list string) ([]int, error) {
	n := m.N()
	if n < 2 {
		return nil, fmt.Errorf("model %s has %d CPU; a sweep needs at least 2", m.Name, n)
	}
	if list != "" {
		sizes, err := sysfs.ParseCPUList(list)
		if err != nil || len(sizes) == 0 {
			return nil, usagef("--sizes: %q is not a list of sizes such as 2-20 or 2,4,8", list)
		}
		if sizes[0] < 2 || sizes[len(sizes)-1] > n {
			return nil, usagef("--sizes: sizes must be between 2 and %d, the CPUs of %s", n, m.Name)
		}
		return sizes, nil
	}
	var sizes []int
	if n <= sweepEveryUpTo {
		for k := 2; k <= n; k++ {
			sizes = append(sizes, k)
		}
		return sizes, nil
	}
	for i := range sweepSpread {
		sizes = append(sizes, 2+(n-2)*i/(sweepSpread-1))
	}
	if k := len(m.Nodes); k > 2 {
		sizes = append(sizes, k)
	}
	slices.Sort(sizes)
	return slices.Compact(sizes), nil
}

// writeSweepTable prints one op: a row per size, a column per topology,
// then the best static topology and adaptive's ratio to it (the labels of
// Smelt's Figure 10).
func writeSweepTable(w io.Writer, op tree.Op, points []tree.SweepPoint) error {
	fmt.Fprintf(w, "\n%s latency (ns)\n", op)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "size\t")
	for _, t := range tree.Topologies() {
		fmt.Fprintf(tw, "%s\t", t)
	}
	fmt.Fprintln(tw, "best static\tadaptive ratio\tbest ratio\t")
	for _, p := range points {
		fmt.Fprintf(tw, "%d\t", p.Size)
		for _, r := range p.Rows {
			fmt.Fprintf(tw, "%.0f\t", r.Latency[op])
		}
		bs := tree.BestStatic(p.Rows, op)
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t\n", bestStaticName(p.Rows, op),
			ratio(latencyOf(p.Rows, tree.Adaptive, op), bs), ratio(latencyOf(p.Rows, tree.Best, op), bs))
	}
	return tw.Flush()
}

func latencyOf(rows []tree.Row, t tree.Topology, op tree.Op) float64 {
	for _, r := range rows {
		if r.Topology == t {
			return r.Latency[op]
		}
	}
	return 0
}

// writeSweepSVGs writes one plot per op, named by inserting the op before
// the extension: plot.svg becomes plot-bcast.svg.
func writeSweepSVGs(w io.Writer, path string, m *topo.Model, points []tree.SweepPoint) error {
	base := strings.TrimSuffix(path, ".svg")
	for _, op := range tree.Ops() {
		name := fmt.Sprintf("%s-%s.svg", base, op)
		plot := sweepPlot(m, op, points)
		if err := writeFile(name, func(f io.Writer) error { return svg.WriteLinePlot(f, plot) }); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s\n", name)
	}
	return nil
}

func sweepPlot(m *topo.Model, op tree.Op, points []tree.SweepPoint) svg.LinePlot {
	p := svg.LinePlot{
		Title:  fmt.Sprintf("%s on %s, CPUs round-robin over NUMA nodes", op, m.Name),
		XLabel: "group size (CPUs)", YLabel: "simulated latency (ns)",
		// Sequential trees grow linearly and would flatten the others.
		LogY: true,
	}
	for i, t := range tree.Topologies() {
		s := svg.Series{Name: t.String(), Dashed: !slices.Contains(tree.Static(), t)}
		for _, pt := range points {
			s.X = append(s.X, float64(pt.Size))
			s.Y = append(s.Y, pt.Rows[i].Latency[op])
		}
		p.Series = append(p.Series, s)
	}
	return p
}

func sweepToJSON(m *topo.Model, points []tree.SweepPoint) compareJSON {
	out := compareJSON{Model: m.Name, CostsEstimated: m.Provenance.CostsEstimated}
	for _, p := range points {
		cpus, _ := tree.RoundRobin(m, p.Size) // succeeded in Sweep
		out.Sweep = append(out.Sweep, sweepJSON{Size: p.Size, CPUs: cpus, Rows: jsonRows(p.Rows)})
	}
	return out
}

// progress draws an in-place "label: 42% ETA 3s" line on stderr. The ETA
// assumes the remaining work goes at the rate so far; Sweep reports work in
// units that make that roughly true.
type progress struct {
	w     io.Writer
	label string
	start time.Time
	shown bool
}

func newProgress(w io.Writer, label string) *progress {
	return &progress{w: w, label: label, start: time.Now()}
}

func (p *progress) update(done, total int) {
	if total <= 0 {
		return
	}
	el := time.Since(p.start)
	// Below 2% the rate is dominated by fixed costs of the tiny first
	// groups and the extrapolation is wildly high.
	eta := "?"
	if done*50 >= total {
		eta = (time.Duration(float64(el) * float64(total-done) / float64(done))).Round(100 * time.Millisecond).String()
	}
	fmt.Fprintf(p.w, "\r%s: %3d%%  ETA %-8s", p.label, 100*done/total, eta)
	p.shown = true
}

// finish ends the progress line with the elapsed time, leaving it in the
// log when stderr is not a terminal.
func (p *progress) finish() {
	if p.shown {
		fmt.Fprintf(p.w, "\r%s: done in %-12s\n", p.label, time.Since(p.start).Round(time.Millisecond))
	}
}
