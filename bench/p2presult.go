package bench

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// WriteP2PJSON writes results as one JSON array.
func WriteP2PJSON(w io.Writer, results []P2PResult) error { return writeArray(w, results) }

// p2pRow is one case with both implementations' values (0: not run).
type p2pRow struct {
	bench, unit             string
	ranks, size, goroutines int
	hosts                   int // distinct hosts of the ranks (P2PResult.Hosts); 0: this one
	plexus, openmpi         float64
	paired                  float64 // P2PResult.Paired
}

// pairUp puts each case's Plexus and Open MPI values on one row, in the
// order cases first appear.
func pairUp(results []P2PResult) []p2pRow {
	type key struct {
		bench           string
		ranks, size, gs int
	}
	index := map[key]int{}
	var rows []p2pRow
	for _, r := range results {
		k := key{r.Bench, r.Ranks, r.Size, r.Goroutines}
		i, ok := index[k]
		if !ok {
			i, index[k] = len(rows), len(rows)
			rows = append(rows, p2pRow{bench: r.Bench, unit: r.Unit, ranks: r.Ranks, size: r.Size, goroutines: max(r.Goroutines, 1), hosts: len(r.Hosts)})
		}
		if r.Paired > 0 {
			rows[i].paired = r.Paired
		}
		if r.Impl == "openmpi" {
			rows[i].openmpi = r.Value
		} else {
			rows[i].plexus = r.Value
		}
	}
	return rows
}

// ratio is plexus/openmpi, or 0 when either is missing.
func (r p2pRow) ratio() float64 {
	if r.plexus == 0 || r.openmpi == 0 {
		return 0
	}
	return r.plexus / r.openmpi
}

// WriteP2PTable writes results side by side, one case per row, with the
// ratio plexus/openmpi of the medians and, when there is one, the paired
// ratio (P2PResult.Paired), a note when Plexus ran serialized worlds, then
// the targets of their transport. A goroutines column follows ranks when
// there are multi-goroutine cases.
func WriteP2PTable(w io.Writer, results []P2PResult) error {
	return writeP2P(w, results, true)
}

// WriteP2PSummary is WriteP2PTable without the paired ratios and the
// targets: a glance at one run, where the paired ratio repeats the ratio
// and no target is judged on one run.
func WriteP2PSummary(w io.Writer, results []P2PResult) error {
	return writeP2P(w, results, false)
}

func writeP2P(w io.Writer, results []P2PResult, full bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	mt := MTBenches()
	gs := slices.ContainsFunc(results, func(r P2PResult) bool { return slices.Contains(mt, r.Bench) })
	paired := full && slices.ContainsFunc(results, func(r P2PResult) bool { return r.Paired > 0 })
	hosts := slices.ContainsFunc(results, func(r P2PResult) bool { return len(r.Hosts) > 0 })
	fmt.Fprintln(tw, "bench\tranks\t"+cond(hosts, "hosts\t")+cond(gs, "goroutines\t")+"size\tunit\tplexus\topenmpi\tplexus/openmpi\t"+cond(paired, "paired\t"))
	for _, r := range pairUp(results) {
		g := cond(hosts, fmt.Sprintf("%d\t", r.hosts)) + cond(gs, fmt.Sprintf("%d\t", r.goroutines))
		fmt.Fprintf(tw, "%s\t%d\t%s%d\t%s\t%s\t%s\t%s\t%s\n", r.bench, r.ranks, g, r.size, r.unit,
			num(r.plexus), num(r.openmpi), num(r.ratio()), cond(paired, num(r.paired)+"\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if slices.ContainsFunc(results, func(r P2PResult) bool { return r.Serialized }) {
		fmt.Fprintln(w, "plexus: serialized worlds (comm.Config.Serialized) where one goroutine per rank runs")
	}
	if slices.ContainsFunc(results, func(r P2PResult) bool { return r.PGO }) {
		fmt.Fprintln(w, "plexus: built with profile-guided optimisation (cmd/plexus/default.pgo; --no-pgo without)")
	}
	if note := hostsNote(results); note != "" {
		fmt.Fprintln(w, note)
	}
	for _, note := range plexusNotes(results) {
		fmt.Fprintln(w, note)
	}
	if len(results) > 0 && results[0].Note != "" {
		fmt.Fprintf(w, "note: %s\n", results[0].Note)
	}
	if !full {
		return nil
	}
	for _, t := range P2PTargets(targetSet(results), results) {
		fmt.Fprintf(w, "target: %s\n", t)
	}
	return nil
}

// cond is s if ok, else "".
func cond(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// targetSet names the targets results are judged by: those of their
// transport (P2P runs all over one), or TargetsHosts when any case ran
// on several hosts.
func targetSet(results []P2PResult) string {
	if len(results) == 0 {
		return ""
	}
	if slices.ContainsFunc(results, func(r P2PResult) bool { return len(r.Hosts) > 1 }) {
		return TargetsHosts
	}
	return results[0].Transport
}

// num formats a value with about three significant digits; 0 is "-".
func num(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
