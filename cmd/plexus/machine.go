package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/plexus-hpc/plexus/internal/svg"
	"github.com/plexus-hpc/plexus/topo"
)

var machineCmd = &command{
	name:    "machine",
	summary: "show a machine model: topology, NUMA distances, send/receive costs",
	usage: `machine [--hwloc FILE | --model DIR|FILE] [--full] [--svg FILE]

Shows the machine's packages, cores, hardware threads and NUMA nodes, the
NUMA distance matrix and a summary of the pairwise send and receive costs
(same core, same node, remote). The full cost matrices are printed for
machines of up to 32 CPUs, or with --full. --svg FILE draws both matrices
as heat maps, side by side in that one file (Smelt's Figure 6).`,
	flags: func() *flag.FlagSet { return new(machineOpts).flagSet() },
	run:   runMachine,
}

type machineOpts struct {
	model modelFlags
	full  bool
	svg   string
}

func (o *machineOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("machine", flag.ContinueOnError)
	o.model.register(fs)
	fs.BoolVar(&o.full, "full", false, "print the full cost matrices even for machines of more than 32 CPUs")
	fs.StringVar(&o.svg, "svg", "", "write send and receive heat maps to `FILE`")
	return fs
}

// fullMatrixLimit is the largest machine whose matrices are printed by
// default: 32 columns of 6 characters still fit a wide terminal.
const fullMatrixLimit = 32

func runMachine(c *cli, args []string) error {
	o := new(machineOpts)
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	if err := outputDir("--svg", o.svg); err != nil {
		return usagef("%v", err)
	}
	m, err := o.model.load()
	if err != nil {
		return err
	}
	w := c.stdout
	writeMachine(w, m)
	if o.full || m.N() <= fullMatrixLimit {
		writeMatrix(w, "send cost (ns), row = sender, column = receiver", m, m.Send.Mean)
		writeMatrix(w, "receive cost (ns), row = sender, column = receiver", m, m.Recv.Mean)
	}
	if o.svg != "" {
		if err := writeFile(o.svg, func(f io.Writer) error { return writeHeatMaps(f, m) }); err != nil {
			return err
		}
		fmt.Fprintf(w, "\nwrote %s\n", o.svg)
	}
	return nil
}

// writeMachine prints the summary every command that shows a machine uses.
func writeMachine(w io.Writer, m *topo.Model) {
	p := m.Provenance
	pk, cores, nodes := m.Counts()
	fmt.Fprintf(w, "machine   %s\n", m.Name)
	fmt.Fprintf(w, "source    %s\n", provenance(p))
	if p.CPUModel != "" {
		fmt.Fprintf(w, "cpu       %s\n", p.CPUModel)
	}
	fmt.Fprintf(w, "counts    %s, %s, %s (hardware threads), %s\n",
		plural(pk, "package"), plural(cores, "core"), plural(m.N(), "PU"), plural(nodes, "NUMA node"))
	fmt.Fprintf(w, "costs     %s\n", strings.TrimPrefix(costNote(m), "costs "))
	writeNodes(w, m)
	writeDistance(w, m)
	writeCostSummary(w, m)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func provenance(p topo.Provenance) string {
	parts := []string{p.Source}
	if p.Host != "" {
		parts = append(parts, "host "+p.Host)
	}
	if p.Date != "" {
		parts = append(parts, p.Date)
	}
	s := strings.Join(parts, ", ")
	if p.Notes != "" {
		s += " (" + p.Notes + ")"
	}
	return s
}

func writeNodes(w io.Writer, m *topo.Model) {
	fmt.Fprintln(w, "\nNUMA nodes")
	cpus := make([][]int, len(m.Nodes))
	for _, c := range m.CPUs {
		cpus[c.Node] = append(cpus[c.Node], c.ID)
	}
	for i, n := range m.Nodes {
		mem := ""
		if n.MemoryBytes > 0 {
			mem = fmt.Sprintf(", %.1f GiB", float64(n.MemoryBytes)/(1<<30))
		}
		fmt.Fprintf(w, "  node %d (os %d%s): %d cpus %s\n", i, n.OSIndex, mem, len(cpus[i]), formatCPUList(cpus[i]))
	}
}

func writeDistance(w io.Writer, m *topo.Model) {
	if m.Distance == nil {
		fmt.Fprintln(w, "\nNUMA distance: unknown")
		return
	}
	fmt.Fprintln(w, "\nNUMA distance")
	fmt.Fprintf(w, "  %4s", "")
	for j := range m.Nodes {
		fmt.Fprintf(w, " %4d", j)
	}
	fmt.Fprintln(w)
	for i, row := range m.Distance {
		fmt.Fprintf(w, "  %4d", i)
		for _, d := range row {
			fmt.Fprintf(w, " %4s", strconv.FormatFloat(d, 'f', -1, 64))
		}
		fmt.Fprintln(w)
	}
}

// writeMatrix prints an N×N cost matrix with CPU ids as headings.
func writeMatrix(w io.Writer, title string, m *topo.Model, a [][]float64) {
	fmt.Fprintf(w, "\n%s\n%6s", title, "")
	for _, id := range m.IDs() {
		fmt.Fprintf(w, " %5d", id)
	}
	fmt.Fprintln(w)
	for i, row := range a {
		fmt.Fprintf(w, "%6d", m.CPUs[i].ID)
		for _, v := range row {
			fmt.Fprintf(w, " %5.0f", v)
		}
		fmt.Fprintln(w)
	}
}

func writeHeatMaps(w io.Writer, m *topo.Model) error {
	labels := make([]string, m.N())
	for i, id := range m.IDs() {
		labels[i] = strconv.Itoa(id)
	}
	h := func(title string, c *topo.Costs) svg.HeatMap {
		return svg.HeatMap{Title: title, Labels: labels, Values: c.Mean, Unit: "ns",
			RowAxis: "sender", ColAxis: "receiver", IgnoreDiagonal: true}
	}
	return svg.WriteHeatMaps(w, fmt.Sprintf("%s: %s", m.Name, costNote(m)),
		h("send cost", m.Send), h("receive cost", m.Recv))
}

// writeFile creates path and writes it with write, reporting the first
// error of either; a file that failed half way is removed.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}
