package bench

import (
	"fmt"
	"slices"
)

// P2PTarget is one of the issues' speed targets, checked on one run's
// ratios (plexus/openmpi).
//
// Ratio is the ratio of the two medians; Paired, when not 0, the median of
// the runs' own ratios (P2PResult.Paired), which decides: on a machine
// whose speed changes from one second to the next, the two medians may
// come from runs in different states, a run's two results do not.
type P2PTarget struct {
	Name   string
	Ratio  float64
	Paired float64
	Max    bool // the ratio must be at most Limit (else at least)
	Limit  float64
}

// decisive is the ratio the verdict reads: Paired when there is one.
func (t P2PTarget) decisive() float64 {
	if t.Paired > 0 {
		return t.Paired
	}
	return t.Ratio
}

// Met reports whether the ratio meets the target.
func (t P2PTarget) Met() bool {
	if t.Max {
		return t.decisive() <= t.Limit
	}
	return t.decisive() >= t.Limit
}

func (t P2PTarget) String() string {
	cmp, verdict := "≥", "not met"
	if t.Max {
		cmp = "≤"
	}
	if t.Met() {
		verdict = "met"
	}
	paired := ""
	if t.Paired > 0 {
		paired = fmt.Sprintf(", paired %.2f", t.Paired)
	}
	return fmt.Sprintf("%s: plexus/openmpi %.2f%s, want %s %g: %s", t.Name, t.Ratio, paired, cmp, t.Limit, verdict)
}

// targetSpec is a target before it is checked: the row it reads and the
// bound on that row's ratio.
type targetSpec struct {
	name  string
	bench string
	size  int // -1: the smallest latency size measured
	ranks int // 0: the first row of bench (the fewest ranks)
	max   bool
	limit float64
}

// tcpTargets are the TCP targets of the ranks issue (issue 4).
var tcpTargets = []targetSpec{
	{name: "latency", bench: "latency", size: -1, max: true, limit: 1.2},
	{name: "message rate, 8 B", bench: "msgrate", size: 8, limit: 10},
	{name: "bandwidth at 1 MiB", bench: "bandwidth", size: 1 << 20, limit: 0.9},
}

// TargetsHosts is the name P2PTargets takes for the targets of ranks on
// several hosts (P2PConfig.Hosts), whatever their transport.
const TargetsHosts = "hosts"

// p2pTargetSets are the targets per transport, and between hosts: TCP's
// from the ranks issue (issue 4), shared memory's from issue 5, between
// hosts TCP's again and the 4-rank collectives of the cluster issue
// (issue 18).
var p2pTargetSets = map[string][]targetSpec{
	"tcp": tcpTargets,
	TargetsHosts: append(slices.Clip(tcpTargets),
		targetSpec{name: "barrier, 4 ranks", bench: "barrier", size: 0, ranks: 4, max: true, limit: 1},
		targetSpec{name: "allreduce 8 B, 4 ranks", bench: "allreduce", size: 8, ranks: 4, max: true, limit: 1}),
	"shm": {
		{name: "latency", bench: "latency", size: -1, max: true, limit: 1.2},
		{name: "bandwidth at 1 MiB", bench: "bandwidth", size: 1 << 20, limit: 0.8},
		{name: "barrier, 2 ranks", bench: "barrier", size: 0, ranks: 2, max: true, limit: 1.2},
		{name: "message rate, 8 B", bench: "msgrate", size: 8, limit: 1},
	},
}

// P2PTargets checks the targets of transport (tcp or shm, or TargetsHosts;
// none for any other) that results allow, that is where both
// implementations measured the case. Over TCP: small-message latency at
// the smallest size ≤ 1.2× Open MPI's, 8-byte message rate ≥ 10×,
// bandwidth at 1 MiB ≥ 0.9×. Over shared memory: latency ≤ 1.2×,
// bandwidth at 1 MiB ≥ 0.8×, 2-rank barrier ≤ 1.2×, message rate ≥ 1×.
// Between hosts: TCP's, and the 4-rank barrier and 8-byte allreduce ≤ 1×.
// Point-to-point targets read the fewest ranks.
func P2PTargets(transport string, results []P2PResult) []P2PTarget {
	rows := pairUp(results)
	small := smallestLatency(rows)
	var out []P2PTarget
	for _, t := range p2pTargetSets[transport] {
		size, name := t.size, t.name
		if size < 0 {
			size, name = small, fmt.Sprintf("%s at %d B", name, small)
		}
		i := slices.IndexFunc(rows, func(r p2pRow) bool {
			return r.bench == t.bench && r.size == size && (t.ranks == 0 || r.ranks == t.ranks) && r.ratio() > 0
		})
		if i >= 0 {
			out = append(out, P2PTarget{Name: name, Ratio: rows[i].ratio(), Paired: rows[i].paired, Max: t.max, Limit: t.limit})
		}
	}
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
