package comm

import (
	"runtime"

	"github.com/plexus-hpc/plexus/affinity"
)

// On a crowded machine (more ranks than CPUs) a rank's fair share of the
// CPUs is less than one, yet an unbound Go rank sizes GOMAXPROCS to every
// CPU it may use. Its runtime then wakes spare threads to run each
// goroutine made ready (a transport's delivery, a channel hand-off), and
// those threads spin looking for work on CPUs the other ranks need, which
// cost a replicated store of four ranks on two CPUs a large share of its
// throughput and tail latency (docs/benchmarks.md, "One P per rank's share
// on a crowded machine"). So a crowded rank's GOMAXPROCS is its share of
// the CPUs its process runs on, at least one, unless GOMAXPROCS is set.

// crowdedProcs is the GOMAXPROCS of a rank whose process may run on mask
// CPUs, shared by sharers ranks: its equal share, at least one.
func crowdedProcs(mask, sharers int) int {
	if sharers < 1 {
		return max(1, mask)
	}
	return max(1, mask/sharers)
}

// shareProcs sets GOMAXPROCS on a crowded machine to the rank's share
// (crowdedProcs) of the CPUs its process runs on: those of its host's
// share if Join bound it there (bound), shared by its host's ranks;
// else, if its process may use all of the machine's cpus, those, shared
// by the machine's ranks. A process someone else bound keeps the
// runtime's default, which follows its mask, since who shares that mask
// is not known. GOMAXPROCS in the environment wins.
func shareProcs(hosts []string, rank, cpus int, bound bool, getenv func(string) string) {
	if getenv("GOMAXPROCS") != "" || rank < 0 || rank >= len(hosts) {
		return
	}
	mask, err := affinity.Allowed()
	if err != nil {
		return
	}
	var sharers int
	switch {
	case bound:
		sharers = countRanks(hosts, func(h string) bool { return h == hosts[rank] })
	case len(mask) >= cpus:
		sharers = countRanks(hosts, func(h string) bool { return machineOf(h) == machineOf(hosts[rank]) })
	default:
		return
	}
	runtime.GOMAXPROCS(crowdedProcs(len(mask), sharers))
}

// countRanks counts the ranks whose host key satisfies same.
func countRanks(hosts []string, same func(string) bool) int {
	n := 0
	for _, h := range hosts {
		if same(h) {
			n++
		}
	}
	return n
}
