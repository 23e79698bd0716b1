package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// Result is one measured case.
type Result struct {
	Bench   string  `json:"bench"`
	Impl    string  `json:"impl"`
	Members int     `json:"members"`
	NsPerOp float64 `json:"ns_per_op"`
	// Ops is how many operations the measurement timed.
	Ops int `json:"ops"`
	// MsgsPerSec is set for stream results.
	MsgsPerSec float64 `json:"msgs_per_sec,omitempty"`
	// PredictedNs is the simulator's latency for the same tree on the
	// measured model (team results only), and Ratio = NsPerOp/PredictedNs.
	PredictedNs float64 `json:"predicted_ns,omitempty"`
	Ratio       float64 `json:"measured_over_predicted,omitempty"`
	// SameTreeAs, for a team result, names the impl of the same size
	// whose tree is this one's: the team was measured once, as that impl,
	// and both rows carry that measurement.
	SameTreeAs string `json:"same_tree_as,omitempty"`
}

// WriteJSON writes results as one JSON array.
func WriteJSON(w io.Writer, results []Result) error { return writeArray(w, results) }

// writeArray writes rows as one indented JSON array, [] when there are
// none, so a reader always gets an array.
func writeArray[T any](w io.Writer, rows []T) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	if rows == nil {
		rows = []T{}
	}
	return enc.Encode(rows)
}

// WriteTable writes results as an aligned table.
func WriteTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "bench\timpl\tmembers\tns/op\tpredicted\tmeasured/predicted\tsame tree as\t")
	for _, r := range results {
		pred, ratio := "", ""
		if r.PredictedNs > 0 {
			pred, ratio = fmt.Sprintf("%.0f", r.PredictedNs), fmt.Sprintf("%.2f", r.Ratio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%s\t%s\t%s\t\n", r.Bench, r.Impl, r.Members, r.NsPerOp, pred, ratio, r.SameTreeAs)
	}
	return tw.Flush()
}

// Find returns the result for bench and impl with the given members, or
// false.
func Find(results []Result, bench, impl string, members int) (Result, bool) {
	for _, r := range results {
		if r.Bench == bench && r.Impl == impl && r.Members == members {
			return r, true
		}
	}
	return Result{}, false
}
