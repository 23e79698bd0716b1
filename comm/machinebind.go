package comm

import (
	"log/slog"
	"runtime"
	"slices"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/launch"
)

// Hosts that share a kernel (namespace hosts, containers: one boot id,
// machineOf) share its CPUs, and no launcher binds their ranks apart:
// plexus run binds only the ranks it starts itself, and each host's own
// launcher sees every CPU of the machine. Their ranks then float over
// all of the machine's CPUs, so that, where they outnumber the CPUs, two
// ranks whose hops follow each other across hosts often wait for one
// CPU while the other runs ranks that only wait. A rank of such a
// crowded machine therefore binds its process to its host's share of the
// machine's CPUs (machineShare), as separate machines would give each
// host CPUs of its own (docs/design/collectives.md, "Crowded hosts that
// share a kernel").

// machineShare returns the CPUs that rank's host gets of cpus, the CPUs
// of rank's machine in increasing order, when two or more of the hosts in
// hosts (every rank's host key, hostKey) share that machine: the hosts
// in order of their lowest rank take equal runs of cpus, the first ones a
// CPU more where they do not divide evenly, and where there are more
// hosts than CPUs, host j takes CPU j mod len(cpus). It returns nil when
// rank's host is alone on its machine or cpus is empty.
func machineShare(hosts []string, rank int, cpus []int) []int {
	if len(cpus) == 0 || rank < 0 || rank >= len(hosts) {
		return nil
	}
	m := machineOf(hosts[rank])
	var mine []string // the machine's hosts, by lowest rank
	for _, h := range hosts {
		if machineOf(h) == m && !slices.Contains(mine, h) {
			mine = append(mine, h)
		}
	}
	if len(mine) < 2 {
		return nil
	}
	j := slices.Index(mine, hosts[rank])
	n := len(mine)
	if n > len(cpus) {
		return []int{cpus[j%len(cpus)]}
	}
	start, size := launch.EqualRun(len(cpus), n, j) // as plexus run shares a host's cores
	return slices.Clone(cpus[start : start+size])
}

// bindToHostShare binds this process to its host's share of the machine's
// CPUs (machineShare) when the machine is crowded, its hosts share a
// kernel, nobody bound the process already (its mask is narrower than the
// machine's CPUs) and PLEXUS_BIND is not "none". It then restores the
// runtime's default GOMAXPROCS, which follows the new mask (Join then
// lowers it to the rank's share: shareProcs). A failure is logged and
// changes nothing else: the job runs unbound. It reports whether it
// bound the process.
func bindToHostShare(hosts []string, rank, machineCPUs int, getenv func(string) string, logger *slog.Logger) bool {
	if getenv("PLEXUS_BIND") == "none" {
		return false
	}
	cpus, err := affinity.Allowed()
	if err != nil || len(cpus) < machineCPUs {
		return false
	}
	share := machineShare(hosts, rank, cpus)
	if share == nil {
		return false
	}
	if logger == nil {
		logger = slog.Default()
	}
	if err := affinity.BindProcess(share); err != nil {
		logger.Warn("comm: binding to this host's share of the machine's CPUs", "rank", rank, "cpus", share, "err", err)
		return false
	}
	if getenv("GOMAXPROCS") == "" {
		runtime.SetDefaultGOMAXPROCS()
	}
	logger.Debug("comm: bound to this host's share of the machine's CPUs", "rank", rank, "cpus", share)
	return true
}
