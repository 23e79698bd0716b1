package bench

import (
	"fmt"
	"slices"
)

// P2PTarget is one of the ranks issue's targets, checked on one run's
// ratios (plexus/openmpi).
type P2PTarget struct {
	Name  string
	Ratio float64
	Max   bool // the ratio must be at most Limit (else at least)
	Limit float64
}

// Met reports whether the ratio meets the target.
func (t P2PTarget) Met() bool {
	if t.Max {
		return t.Ratio <= t.Limit
	}
	return t.Ratio >= t.Limit
}

func (t P2PTarget) String() string {
	cmp, verdict := "≥", "not met"
	if t.Max {
		cmp = "≤"
	}
	if t.Met() {
		verdict = "met"
	}
	return fmt.Sprintf("%s: plexus/openmpi %.2f, want %s %g: %s", t.Name, t.Ratio, cmp, t.Limit, verdict)
}

// P2PTargets checks the targets that results allow (both implementations
// measured the case): small-message latency at the smallest size ≤ 1.2×
// Open MPI's, 8-byte message rate ≥ 10×, bandwidth at 1 MiB ≥ 0.9×, all
// with the fewest ranks.
func P2PTargets(results []P2PResult) []P2PTarget {
	rows := pairUp(results)
	var out []P2PTarget
	add := func(name string, max bool, limit float64, ok func(p2pRow) bool) {
		i := slices.IndexFunc(rows, func(r p2pRow) bool { return ok(r) && r.ratio() > 0 })
		if i >= 0 {
			out = append(out, P2PTarget{Name: name, Ratio: rows[i].ratio(), Max: max, Limit: limit})
		}
	}
	small := smallestLatency(rows)
	add(fmt.Sprintf("latency at %d B", small), true, 1.2, func(r p2pRow) bool { return r.bench == "latency" && r.size == small })
	add("message rate, 8 B", false, 10, func(r p2pRow) bool { return r.bench == "msgrate" })
	add("bandwidth at 1 MiB", false, 0.9, func(r p2pRow) bool { return r.bench == "bandwidth" && r.size == 1<<20 })
	return out
}

func smallestLatency(rows []p2pRow) int {
	small := -1
	for _, r := range rows {
		if r.bench == "latency" && (small < 0 || r.size < small) {
			small = r.size
		}
	}
	return small
}
