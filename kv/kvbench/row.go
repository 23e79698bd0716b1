package kvbench

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/plexus-hpc/plexus/internal/svg"
)

// Row is one measurement: bench is "agree", "kv" or "kvlocal", impl the
// broadcast ("tree" or "sequential"; "tree-binary" and the like for a
// tree other than the adaptive one).
type Row struct {
	Bench    string  `json:"bench"`
	Impl     string  `json:"impl"`
	Replicas int     `json:"replicas"`
	Clients  int     `json:"clients"`
	OpsPerS  float64 `json:"ops_per_s"`
	P50us    float64 `json:"p50_us"`
	P99us    float64 `json:"p99_us"`
	// AcceptorNs and LeaderNs (bench agree) are the busy nanoseconds per
	// decision of the first acceptor (replica 1) and leader (replica 0):
	// the acceptor's is what bounds the throughput when its broadcast is
	// the bottleneck, as in Smelt's §5.6.
	AcceptorNs float64 `json:"acceptor_ns,omitempty"`
	LeaderNs   float64 `json:"leader_ns,omitempty"`
	// BusiestNs (bench agree) is the busy nanoseconds per decision of the
	// busiest replica, Busiest (meaningful only with BusiestNs): an inner
	// replica of the tree that relays may bound a group before the
	// acceptor or the leader do.
	BusiestNs float64 `json:"busiest_ns,omitempty"`
	Busiest   int     `json:"busiest,omitempty"`
	// AcceptorParts and LeaderParts (bench agree with a profile) split
	// AcceptorNs and LeaderNs by part of the replica's loop, in
	// nanoseconds per decision (group.Profile's parts by name).
	AcceptorParts map[string]float64 `json:"acceptor_parts_ns,omitempty"`
	LeaderParts   map[string]float64 `json:"leader_parts_ns,omitempty"`
	// AcceptorSweeps and LeaderSweeps (with a profile) are the busy
	// sweeps of their loops per decision: each part of a sampled sweep
	// includes one clock read (tens of nanoseconds), so a part's time per
	// decision carries that many reads of the profile's own cost.
	AcceptorSweeps float64 `json:"acceptor_sweeps,omitempty"`
	LeaderSweeps   float64 `json:"leader_sweeps,omitempty"`
	// GCPerS and AllocsPerOp (bench agree) are the process's garbage
	// collections per second and heap allocations per decision, clients
	// included: a collection stops the replicas' loops.
	GCPerS      float64 `json:"gc_per_s,omitempty"`
	AllocsPerOp float64 `json:"allocs_per_op,omitempty"`
	// SleepsPerS (bench agree) is how often, all replicas together, a
	// replica's loop blocked idle per second (group.Load's Sleeps).
	SleepsPerS float64 `json:"sleeps_per_s,omitempty"`
	// ClientsAt (bench agree) is "leader" when every client proposed at
	// the leader (AgreeConfig.AtLeader), empty when client i proposed at
	// replica i mod Replicas.
	ClientsAt string `json:"clients_at,omitempty"`
	// Retries (bench agree) is how many requests a client proposed again
	// after waiting attemptFor without an answer: proposals the protocol
	// dropped, or answers slower than that.
	Retries int `json:"retries,omitempty"`
}

// Median returns rows[0] with each number replaced by its median over
// rows (the upper one of an even count).
func Median(rows []Row) Row {
	out := rows[0]
	med := func(f func(Row) float64) float64 {
		xs := make([]float64, len(rows))
		for i, r := range rows {
			xs[i] = f(r)
		}
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	out.OpsPerS = med(func(r Row) float64 { return r.OpsPerS })
	out.P50us = med(func(r Row) float64 { return r.P50us })
	out.P99us = med(func(r Row) float64 { return r.P99us })
	out.AcceptorNs = med(func(r Row) float64 { return r.AcceptorNs })
	out.LeaderNs = med(func(r Row) float64 { return r.LeaderNs })
	out.BusiestNs = med(func(r Row) float64 { return r.BusiestNs })
	for _, r := range rows {
		if r.BusiestNs == out.BusiestNs {
			out.Busiest = r.Busiest // the id goes with the median's time
		}
	}
	out.GCPerS = med(func(r Row) float64 { return r.GCPerS })
	out.AllocsPerOp = med(func(r Row) float64 { return r.AllocsPerOp })
	out.SleepsPerS = med(func(r Row) float64 { return r.SleepsPerS })
	out.AcceptorSweeps = med(func(r Row) float64 { return r.AcceptorSweeps })
	out.LeaderSweeps = med(func(r Row) float64 { return r.LeaderSweeps })
	out.AcceptorParts = medianParts(rows, func(r Row) map[string]float64 { return r.AcceptorParts })
	out.LeaderParts = medianParts(rows, func(r Row) map[string]float64 { return r.LeaderParts })
	out.Retries = int(med(func(r Row) float64 { return float64(r.Retries) }))
	return out
}

// WriteJSON writes rows as one JSON array.
func WriteJSON(w io.Writer, rows []Row) error {
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// WriteTable writes rows as an aligned table.
func WriteTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "bench\timpl\treplicas\tclients\tops/s\tp50 µs\tp99 µs\tacceptor ns/op\tleader ns/op\tbusiest ns/op\t")
	for _, r := range rows {
		busiest := nsCell(r.BusiestNs)
		if r.BusiestNs > 0 {
			busiest = fmt.Sprintf("%s (replica %d)", busiest, r.Busiest)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f\t%.1f\t%.1f\t%s\t%s\t%s\t\n", r.Bench, r.Impl, r.Replicas, r.Clients,
			r.OpsPerS, r.P50us, r.P99us, nsCell(r.AcceptorNs), nsCell(r.LeaderNs), busiest)
	}
	return tw.Flush()
}

// nsCell is a busy time per decision, or "-" where the bench has none.
func nsCell(ns float64) string {
	if ns == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", ns)
}

// Plots returns, for one bench, the throughput and the p99 response time
// against replicas, one line per impl (rows with the most clients of
// each point).
func Plots(rows []Row, bench string) (thru, resp svg.LinePlot) {
	thru = svg.LinePlot{Title: bench + ": throughput", XLabel: "replicas", YLabel: "ops/s"}
	resp = svg.LinePlot{Title: bench + ": p99 response time", XLabel: "replicas", YLabel: "µs"}
	byImpl := map[string][]Row{}
	for _, r := range rows {
		if r.Bench == bench {
			byImpl[r.Impl] = append(byImpl[r.Impl], r)
		}
	}
	for _, impl := range slices.Sorted(mapKeys(byImpl)) {
		rs := bestPerReplicas(byImpl[impl])
		t, p := svg.Series{Name: impl, Dashed: impl == "sequential"}, svg.Series{Name: impl, Dashed: impl == "sequential"}
		for _, r := range rs {
			t.X, t.Y = append(t.X, float64(r.Replicas)), append(t.Y, r.OpsPerS)
			p.X, p.Y = append(p.X, float64(r.Replicas)), append(p.Y, r.P99us)
		}
		thru.Series, resp.Series = append(thru.Series, t), append(resp.Series, p)
	}
	return thru, resp
}

// bestPerReplicas keeps, per replica count, the row with the most
// clients, sorted by replicas.
func bestPerReplicas(rs []Row) []Row {
	by := map[int]Row{}
	for _, r := range rs {
		if b, ok := by[r.Replicas]; !ok || r.Clients > b.Clients {
			by[r.Replicas] = r
		}
	}
	out := make([]Row, 0, len(by))
	for _, r := range by {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Row) int { return cmp.Compare(a.Replicas, b.Replicas) })
	return out
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

// row makes the row of one run from its sorted response times.
func row(bench, impl string, replicas, clients int, lat []time.Duration, elapsed time.Duration) Row {
	q := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Nanoseconds()) / 1e3
	}
	return Row{Bench: bench, Impl: impl, Replicas: replicas, Clients: clients,
		OpsPerS: float64(len(lat)) / elapsed.Seconds(), P50us: q(0.5), P99us: q(0.99)}
}
