package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/plexus-hpc/plexus/bench"
)

// allreduceRow is one algorithm at one rank count over the runs of plexus
// bench allreduce.
type allreduceRow struct {
	ranks            int
	name             string  // allreduce, allreduce-trees, allreduce-doubling
	plexus, openmpi  float64 // medians over the runs, µs; openmpi 0 when absent
	paired, lo, hi   float64 // median, least and greatest of the runs' own ratios
	runs, pairedRuns int
}

// allreduceRows gathers the allreduce results of every run (each a list of
// one run's results) by rank count and algorithm, in order of appearance.
// A run's ratio divides its Plexus time by its own Open MPI allreduce time
// at the same rank count. It is pure.
func allreduceRows(runs [][]bench.P2PResult) []allreduceRow {
	type key struct {
		ranks int
		name  string
	}
	var order []key
	times, mpi, ratios := map[key][]float64{}, map[int][]float64{}, map[key][]float64{}
	for _, run := range runs {
		own := map[int]float64{}
		for _, r := range run {
			if r.Bench == "allreduce" && r.Impl == "openmpi" {
				own[r.Ranks] = r.Value
				mpi[r.Ranks] = append(mpi[r.Ranks], r.Value)
			}
		}
		for _, r := range run {
			if r.Impl != "plexus" || !strings.HasPrefix(r.Bench, "allreduce") {
				continue
			}
			k := key{r.Ranks, r.Bench}
			if times[k] == nil {
				order = append(order, k)
			}
			times[k] = append(times[k], r.Value)
			if o := own[r.Ranks]; o > 0 {
				ratios[k] = append(ratios[k], r.Value/o)
			}
		}
	}
	rows := make([]allreduceRow, 0, len(order))
	for _, k := range order {
		row := allreduceRow{ranks: k.ranks, name: k.name, plexus: medianOf(times[k]), openmpi: medianOf(mpi[k.ranks]),
			runs: len(times[k]), pairedRuns: len(ratios[k])}
		if r := ratios[k]; len(r) > 0 {
			row.paired, row.lo, row.hi = medianOf(r), slices.Min(r), slices.Max(r)
		}
		rows = append(rows, row)
	}
	return rows
}

// medianOf is the median of v (the lower middle value), 0 for none; v is
// left as it was.
func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	return s[(len(s)-1)/2]
}

func writeAllreduceTable(w io.Writer, rows []allreduceRow) error {
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ranks\tallreduce\tplexus µs\topenmpi µs\tpaired ratio\trange\truns\t")
	for _, r := range rows {
		mpi, paired, rng := "-", "-", "-"
		if r.openmpi > 0 {
			mpi = fmt.Sprintf("%.3g", r.openmpi)
		}
		if r.pairedRuns > 0 {
			paired, rng = fmt.Sprintf("%.2f", r.paired), fmt.Sprintf("%.2f-%.2f", r.lo, r.hi)
		}
		fmt.Fprintf(tw, "%d\t%s\t%.3g\t%s\t%s\t%s\t%d\t\n", r.ranks, r.name, r.plexus, mpi, paired, rng, r.runs)
	}
	return tw.Flush()
}
