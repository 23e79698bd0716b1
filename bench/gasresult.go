package bench

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// GasResult is one case of Gas: the median over the runs.
type GasResult struct {
	Bench     string  `json:"bench"` // am, delegate_latency or gups
	Impl      string  `json:"impl"`  // aggregated, direct, openmpi (am) or plexus
	Transport string  `json:"transport"`
	Ranks     int     `json:"ranks"`
	Size      int     `json:"size"` // bytes of a message or element
	Value     float64 `json:"value"`
	Unit      string  `json:"unit"` // msgs/s, µs or ops/s
	Iters     int     `json:"iters"`
	Runs      int     `json:"runs"`
	// Note says why Open MPI did not run (no mpicc or mpirun); empty
	// when it did.
	Note string `json:"note,omitempty"`
}

func gasResults(rs []P2PResult, note string) []GasResult {
	out := make([]GasResult, len(rs))
	for i, r := range rs {
		out[i] = GasResult{r.Bench, r.Impl, r.Transport, r.Ranks, r.Size, r.Value, r.Unit, r.Iters, r.Runs, note}
	}
	return out
}

// WriteGasJSON writes results as one JSON array.
func WriteGasJSON(w io.Writer, results []GasResult) error { return writeArray(w, results) }

// WriteGasTable writes results as an aligned table, then the ratios
// against the targets: aggregated am ≥ 12× direct over tcp, ≥ 3×
// over shm, and ≥ 1× Open MPI's; 2-rank GUPS ≥ 1× Open MPI's.
func WriteGasTable(w io.Writer, results []GasResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "bench\timpl\ttransport\tranks\tsize\tvalue\tunit\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.4g\t%s\t\n", r.Bench, r.Impl, r.Transport, r.Ranks, r.Size, r.Value, r.Unit)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(results) > 0 && results[0].Note != "" {
		fmt.Fprintf(w, "note: %s\n", results[0].Note)
	}
	writeGasRatios(w, results)
	return nil
}

func writeGasRatios(w io.Writer, results []GasResult) {
	agg := findGas(results, "am", "aggregated", 2)
	if agg == nil {
		return
	}
	want := map[string]float64{"tcp": 12, "shm": 3}[agg.Transport]
	if d := findGas(results, "am", "direct", 2); d != nil && d.Value > 0 {
		r := agg.Value / d.Value
		fmt.Fprintf(w, "\naggregated/direct over %s: %.2f× (target ≥ %g×: %s)\n", agg.Transport, r, want, met(r >= want))
	}
	if o := findGas(results, "am", "openmpi", 2); o != nil && o.Value > 0 {
		r := agg.Value / o.Value
		fmt.Fprintf(w, "aggregated (%s)/openmpi (shm): %.2f× (target ≥ 1×: %s)\n", agg.Transport, r, met(r >= 1))
	}
	p, o := findGas(results, "gups", "plexus", 2), findGas(results, "gups", "openmpi", 2)
	if p != nil && o != nil && o.Value > 0 {
		r := p.Value / o.Value
		fmt.Fprintf(w, "gups, 2 ranks, plexus (%s)/openmpi (shm): %.2f× (target ≥ 1×: %s)\n", p.Transport, r, met(r >= 1))
	}
}

func findGas(results []GasResult, bench, impl string, ranks int) *GasResult {
	for i := range results {
		if r := results[i]; r.Bench == bench && r.Impl == impl && r.Ranks == ranks {
			return &results[i]
		}
	}
	return nil
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}
