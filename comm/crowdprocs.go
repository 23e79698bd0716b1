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
// on a crowded machine"). So a crowded rank's GOMAXPROCS is at most its
// share of the CPUs its process runs on, at least one, unless GOMAXPROCS
// is set.

// crowdedProcs is the GOMAXPROCS of a rank whose process may run on mask
// CPUs, shared by sharers ranks: its equal share, at least one.
func crowdedProcs(mask, sharers int) int {
	if sharers < 1 {
		return max(1, mask)
	}
	return max(1, mask/sharers)
}

// shareOf returns the GOMAXPROCS of rank on a crowded machine of cpus
// CPUs (crowdedProcs), given the CPUs its process may run on now (mask):
// where Join bound it to its host's share (bound), that share over its
// host's ranks; else, where its process may use all the machine's CPUs,
// those over the machine's ranks. It returns false for a process someone
// else bound, since who shares its mask is not known.
func shareOf(hosts []string, rank, cpus int, bound bool, mask []int) (int, bool) {
	if rank < 0 || rank >= len(hosts) {
		return 0, false
	}
	switch {
	case bound:
		return crowdedProcs(len(mask), countRanks(hosts, func(h string) bool { return h == hosts[rank] })), true
	case len(mask) >= cpus:
		return crowdedProcs(len(mask), countRanks(hosts, func(h string) bool { return machineOf(h) == machineOf(hosts[rank]) })), true
	}
	return 0, false
}

// shareProcs lowers GOMAXPROCS on a crowded machine to the rank's share
// (shareOf) of the CPUs its process runs on now, after Join's binding; it
// never raises it (a program's own lower setting, a CPU quota's lower
// default, stay), and GOMAXPROCS in the environment wins.
func shareProcs(hosts []string, rank, cpus int, bound bool, getenv func(string) string) {
	if getenv("GOMAXPROCS") != "" {
		return
	}
	mask, err := affinity.ProcessCPUs()
	if err != nil {
		return
	}
	if p, ok := shareOf(hosts, rank, cpus, bound, mask); ok {
		runtime.GOMAXPROCS(min(p, runtime.GOMAXPROCS(0)))
	}
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
