package main

import (
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

var treeCmd = &command{
	name:    "tree",
	summary: "build one tree and show it with its simulated latencies",
	usage: `tree [--hwloc FILE | --model DIR|FILE] [--topology NAME] [--op OP] [--cpus LIST] [--root N] [--format FORMAT] [-o FILE]

Builds a tree over the CPUs in --cpus (all by default) and writes it as an
indented outline (text), JSON, Graphviz dot or SVG. The text format also
prints the simulated latency of broadcast, reduction and barrier on it;
the SVG colours the nodes by NUMA node (by package on one-node machines).
Topologies: adaptive, best, binary, fibonacci, sequential, mst, cluster,
bad, adaptive-base. "best" optimises the tree for --op.`,
	flags: func() *flag.FlagSet { return new(treeOpts).flagSet() },
	run:   runTree,
}

type treeOpts struct {
	model    modelFlags
	topology string
	op       string
	cpus     string
	root     rootFlag
	format   string
	out      string
}

func (o *treeOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("tree", flag.ContinueOnError)
	o.model.register(fs)
	fs.StringVar(&o.topology, "topology", "adaptive", "tree topology `NAME` to build")
	fs.StringVar(&o.op, "op", "bcast", "operation `OP`: bcast, reduce, barrier or release-barrier (what best optimises for)")
	fs.StringVar(&o.cpus, "cpus", "", "group of CPUs as a `LIST` such as 0-7,16 (default all)")
	o.root.id = tree.AutoRoot
	fs.Var(&o.root, "root", "root CPU `N`, or auto for the lowest total send cost")
	fs.StringVar(&o.format, "format", "text", "output `FORMAT`: text, json, dot or svg")
	fs.StringVar(&o.out, "o", "", "write to `FILE` instead of standard output")
	return fs
}

var treeFormats = []string{"text", "json", "dot", "svg"}

func runTree(c *cli, args []string) error {
	o := new(treeOpts)
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	if err := outputDir("-o", o.out); err != nil {
		return usagef("%v", err)
	}
	spec, err := o.spec()
	if err != nil {
		return err
	}
	m, err := o.model.load()
	if err != nil {
		return err
	}
	if spec.CPUs, err = groupFlags(m, o.cpus, o.root.id); err != nil {
		return err
	}
	t, err := buildTree(c.stderr, m, spec)
	if err != nil {
		return err
	}
	write := func(w io.Writer) error { return writeTree(w, o.format, m, t, spec.Op) }
	if o.out == "" {
		return write(c.stdout)
	}
	if err := writeFile(o.out, write); err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "wrote %s\n", o.out)
	return nil
}

// buildTree builds spec's tree, drawing a progress bar on stderr while a
// Best tree is searched for: on thousands of CPUs that takes minutes.
func buildTree(stderr io.Writer, m *topo.Model, spec tree.Spec) (*tree.Tree, error) {
	if spec.Topology == tree.Best {
		p, shown := newProgress(stderr, "best tree on "+m.Name), -1
		spec.Progress = func(done, total int) {
			// One line per percent: the search reports every node it scans.
			if pct := 100 * done / total; pct != shown {
				shown = pct
				p.update(done, total)
			}
		}
		defer p.finish()
	}
	return tree.Build(m, spec)
}

// spec checks the flags that need no model, so that a typo is reported
// before a possibly slow model load.
func (o *treeOpts) spec() (tree.Spec, error) {
	top, err := tree.ParseTopology(o.topology)
	if err != nil {
		return tree.Spec{}, usagef("--topology: %v", err)
	}
	op, err := tree.ParseOp(o.op)
	if err != nil {
		return tree.Spec{}, usagef("--op: %v", err)
	}
	if !slices.Contains(treeFormats, o.format) {
		return tree.Spec{}, usagef("--format: unknown format %q (want text, json, dot or svg)", o.format)
	}
	return tree.Spec{Topology: top, Op: op, Root: o.root.id}, nil
}

// groupFlags resolves --cpus (nil for every CPU) and checks --root is in
// the group.
func groupFlags(m *topo.Model, cpuList string, root int) ([]int, error) {
	var cpus []int
	if cpuList != "" {
		var err error
		if cpus, err = parseCPUs(m, cpuList); err != nil {
			return nil, err
		}
	}
	if root == tree.AutoRoot {
		return cpus, nil
	}
	group := cpus
	if group == nil {
		group = m.IDs()
	}
	if !slices.Contains(group, root) {
		return nil, usagef("--root: cpu %d is not in the group %s", root, formatCPUList(group))
	}
	return cpus, nil
}

func writeTree(w io.Writer, format string, m *topo.Model, t *tree.Tree, op tree.Op) error {
	switch format {
	case "json":
		return t.WriteJSON(w)
	case "dot":
		return t.WriteDot(w)
	case "svg":
		return writeTreeSVG(w, m, t, op)
	}
	return writeTreeText(w, m, t, op)
}

func writeTreeText(w io.Writer, m *topo.Model, t *tree.Tree, op tree.Op) error {
	fmt.Fprintf(w, "model: %s, %s\n", m.Name, costNote(m))
	if t.Topology == tree.Best.String() {
		fmt.Fprintf(w, "best tree optimised for %s\n", op)
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nsimulated latency")
	for _, o := range tree.Ops() {
		r, err := tree.Simulate(m, t, o)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-8s %9.1f ns  (cpu %d finishes last)\n", o, r.Latency, r.Last)
	}
	return nil
}
