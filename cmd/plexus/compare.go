package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/plexus-hpc/plexus/tree"
)

var compareCmd = &command{
	name:    "tree compare",
	summary: "simulate every topology for every operation and compare them",
	usage: `tree compare [--hwloc FILE | --model DIR|FILE] [--cpus LIST] [--root N] [--json]
       plexus tree compare [model flags] --sweep [--sizes LIST] [--svg FILE] [--json]

Builds every topology over the group and prints the simulated latency (ns)
of broadcast, reduction and barrier, each with its ratio to the best static
tree (binary, fibonacci, sequential, mst, cluster, bad); below 1 is faster.

--sweep repeats the comparison for group sizes 2..N (about 12 sizes when N
> 64), CPUs allocated round-robin over NUMA nodes as in Smelt §5.2, and
prints a table per operation; --sizes picks the sizes and implies --sweep.
--svg FILE plots latency (log scale) against group size, one file per
operation, named by inserting the operation before .svg: --svg zen.svg
writes zen-bcast.svg, zen-reduce.svg and zen-barrier.svg.`,
	flags: func() *flag.FlagSet { return new(compareOpts).flagSet() },
	run:   runCompare,
}

type compareOpts struct {
	model modelFlags
	cpus  string
	root  rootFlag
	sweep bool
	sizes string
	svg   string
	json  bool
}

func (o *compareOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("tree compare", flag.ContinueOnError)
	o.model.register(fs)
	fs.StringVar(&o.cpus, "cpus", "", "group of CPUs as a `LIST` such as 0-7,16 (default all)")
	o.root.id = tree.AutoRoot
	fs.Var(&o.root, "root", "root CPU `N`, or auto for the lowest total send cost")
	fs.BoolVar(&o.sweep, "sweep", false, "compare over group sizes, CPUs round-robin over NUMA nodes")
	fs.StringVar(&o.sizes, "sizes", "", "group sizes for the sweep as a `LIST` such as 2-20 or 2,4,8 (implies --sweep)")
	fs.StringVar(&o.svg, "svg", "", "with --sweep, plot to `FILE` with -bcast, -reduce, -barrier suffixes")
	fs.BoolVar(&o.json, "json", false, "write JSON instead of tables")
	return fs
}

// check rejects flag combinations that do not mean anything.
func (o *compareOpts) check() error {
	if o.sizes != "" {
		o.sweep = true
	}
	switch {
	case o.sweep && o.cpus != "":
		return usagef("--cpus and --sweep are alternatives: the sweep chooses its own groups")
	case o.sweep && o.root.id != tree.AutoRoot:
		return usagef("--root cannot be used with --sweep: each group's root is chosen automatically")
	case o.svg != "" && !o.sweep:
		return usagef("--svg plots a sweep; add --sweep")
	}
	return nil
}

func runCompare(c *cli, args []string) error {
	o := new(compareOpts)
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	if err := outputDir("--svg", o.svg); err != nil {
		return usagef("%v", err)
	}
	if err := o.check(); err != nil {
		return err
	}
	m, err := o.model.load()
	if err != nil {
		return err
	}
	if o.sweep {
		return runSweep(c, o, m)
	}
	cpus, err := groupFlags(m, o.cpus, o.root.id)
	if err != nil {
		return err
	}
	rows, err := tree.Compare(m, cpus, o.root.id)
	if err != nil {
		return err
	}
	if cpus == nil {
		cpus = m.IDs()
	}
	if o.json {
		return writeJSON(c.stdout, compareJSON{Model: m.Name, CostsEstimated: m.Provenance.CostsEstimated,
			CPUs: cpus, Rows: jsonRows(rows)})
	}
	fmt.Fprintf(c.stdout, "%s: %d CPUs %s, %s\n", m.Name, len(cpus), formatCPUList(cpus), costNote(m))
	return writeCompareTable(c.stdout, rows)
}

// writeCompareTable prints topology × op latencies with the ratio to the
// best static tree, the comparison Smelt's Figures 7 and 10 make.
func writeCompareTable(w io.Writer, rows []tree.Row) error {
	fmt.Fprintf(w, "root %d; latency in ns; ratio = latency / best static tree\n\n", rows[0].Root)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "topology\t")
	for _, op := range tree.Ops() {
		fmt.Fprintf(tw, "%s\tratio\t", op)
	}
	fmt.Fprintln(tw)
	kept, twins := mergeEqualRows(rows)
	for _, r := range kept {
		fmt.Fprintf(tw, "%s\t", r.Topology)
		for _, op := range tree.Ops() {
			fmt.Fprintf(tw, "%.1f\t%.2f\t", r.Latency[op], ratio(r.Latency[op], tree.BestStatic(rows, op)))
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprint(tw, "best static\t")
	for _, op := range tree.Ops() {
		fmt.Fprintf(tw, "%s\t\t", bestStaticName(rows, op))
	}
	fmt.Fprintln(tw)
	if err := tw.Flush(); err != nil {
		return err
	}
	writeTwins(w, kept, twins)
	return nil
}

// bestStaticName names the static topology BestStatic picked.
func bestStaticName(rows []tree.Row, op tree.Op) string {
	bs := tree.BestStatic(rows, op)
	for _, t := range tree.Static() {
		for _, r := range rows {
			if r.Topology == t && r.Latency[op] == bs {
				return t.String()
			}
		}
	}
	return "-"
}

// JSON forms: latencies keyed by op name, ratios alongside, so a script
// need not recompute the baseline.
type compareJSON struct {
	Model          string      `json:"model"`
	CostsEstimated bool        `json:"costs_estimated"`
	CPUs           []int       `json:"cpus,omitempty"`
	Rows           []rowJSON   `json:"rows,omitempty"`
	Sweep          []sweepJSON `json:"sweep,omitempty"`
}

type rowJSON struct {
	Topology string             `json:"topology"`
	Root     int                `json:"root"`
	Latency  map[string]float64 `json:"latency_ns"`
	Ratio    map[string]float64 `json:"ratio_to_best_static"`
}

type sweepJSON struct {
	Size int       `json:"size"`
	CPUs []int     `json:"cpus"`
	Rows []rowJSON `json:"rows"`
}

func jsonRows(rows []tree.Row) []rowJSON {
	out := make([]rowJSON, len(rows))
	for i, r := range rows {
		out[i] = rowJSON{Topology: r.Topology.String(), Root: r.Root,
			Latency: map[string]float64{}, Ratio: map[string]float64{}}
		for _, op := range tree.Ops() {
			out[i].Latency[op.String()] = r.Latency[op]
			out[i].Ratio[op.String()] = ratio(r.Latency[op], tree.BestStatic(rows, op))
		}
	}
	return out
}

// ratio is a/b, 0 where b is 0 (a one-CPU group) so JSON stays valid.
func ratio(a, b float64) float64 {
	if b == 0 || math.IsInf(b, 0) {
		return 0
	}
	return a / b
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(v)
}
