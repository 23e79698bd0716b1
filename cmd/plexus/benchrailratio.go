package main

import (
	"fmt"
	"math"
)

// railTarget is one of issue 19's targets: impl's value over base's, at
// the sizes from minSize on, of the bandwidth rows with or without the
// competing flow (latency: base's over impl's, lower being better).
type railTarget struct {
	what       string
	bench      string
	impl, base string
	compete    bool
	minSize    int
	want       float64
}

var railTargets = []railTarget{
	{"of the rails' sampled sum", "bandwidth", "plexus", "ideal", false, 1 << 20, 0.97},
	{"over iso (rails 2x apart)", "bandwidth", "plexus", "iso", false, 1 << 20, 1.15},
	{"over weighted, competing flow", "bandwidth", "plexus", "weighted", true, 1 << 20, 1.1},
	{"over openmpi", "bandwidth", "plexus", "openmpi", false, 0, 1.0},
	{"over openmpi, competing flow", "bandwidth", "plexus", "openmpi", true, 0, 1.0},
	{"over openmpi (latency)", "latency", "plexus", "openmpi", false, 0, 1.0},
}

// railRatios says, for each target whose impls both ran, the worst ratio
// over the sizes it covers, where, the geometric mean, and whether the
// target is met.
func railRatios(rows []railRow) []string {
	var out []string
	for _, t := range railTargets {
		if s, ok := t.ratio(rows); ok {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = append(out, "none: the impls they compare did not both run")
	}
	return out
}

func (t railTarget) ratio(rows []railRow) (string, bool) {
	impl, base := t.values(rows, t.impl), t.values(rows, t.base)
	worst, at, logSum, n, paired := math.Inf(1), 0, 0.0, 0, 0
	for size, v := range impl {
		b, ok := base[size]
		if !ok || v.Value <= 0 || b.Value <= 0 {
			continue
		}
		r, byRound := t.sizeRatio(v, b)
		if byRound {
			paired++
		}
		if r < worst || (r == worst && size < at) {
			worst, at = r, size
		}
		logSum += math.Log(r)
		n++
	}
	if n == 0 {
		return "", false
	}
	verdict := "met"
	if worst < t.want {
		verdict = "NOT met"
	}
	from := ""
	if t.minSize > 0 {
		from = ", from " + sizeName(t.minSize)
	}
	how := ""
	if paired == n {
		how = " (each size's ratio paired round by round)"
	}
	return fmt.Sprintf("%s %s%s: worst %.3f at %s, mean %.3f over %d sizes; target >= %.2f: %s%s",
		t.impl, t.what, from, worst, sizeName(at), math.Exp(logSum/float64(n)), n, t.want, verdict, how), true
}

// sizeRatio is the target's ratio at one size: the median of the
// rounds' ratios where both ran the same rounds (byRound), so that
// each compares runs minutes apart at most, not the medians of runs
// that may be the rounds' slowest for one impl and fastest for the
// other; else the ratio of the two medians.
func (t railTarget) sizeRatio(v, b railRow) (r float64, byRound bool) {
	ratio := func(v, b float64) float64 {
		if t.bench == "latency" {
			return b / v
		}
		return v / b
	}
	if len(v.Rounds) < 2 || len(v.Rounds) != len(b.Rounds) {
		return ratio(v.Value, b.Value), false
	}
	rs := make([]float64, len(v.Rounds))
	for i := range rs {
		rs[i] = ratio(v.Rounds[i], b.Rounds[i])
	}
	return median(rs), true
}

// values maps size to impl's row among the target's rows.
func (t railTarget) values(rows []railRow, impl string) map[int]railRow {
	out := map[int]railRow{}
	for _, r := range rows {
		if r.Bench == t.bench && r.Impl == impl && r.Compete == t.compete && !r.Aggregated && r.Size >= t.minSize && r.Size > 0 {
			out[r.Size] = r
		}
	}
	return out
}
