package collective

// Two levels by default on crowded machines whose hosts have CPUs apart.
//
// Where ranks outnumber CPUs, every hop in a row waits for a CPU, and the
// trees keep the fewest messages (keepTrees). The two levels (hier.go)
// cross between hosts once, every leader at once; that pays only where
// the leaders run at once, on CPUs of their own hosts: separate machines,
// or hosts of one kernel bound to shares of its CPUs apart (comm binds
// its ranks so, machineShare). Hosts of one kernel whose ranks float over
// the same CPUs put both leaders on one CPU half of the time, where the
// two levels measured about twice as slow as the trees
// (docs/benchmarks.md, "Collectives across hosts in two levels"). So
// rank 0 chooses the two levels for a crowded world exactly when every
// machine's hosts run on disjoint sets of CPUs (hostsApart), and tells
// every rank in the plan.

// hostsApart reports whether, on every machine, the ranks of different
// hosts (groups, comm.World.Hosts) run on disjoint CPUs, from the ranks'
// hellos (indexed by rank). A rank that did not say its CPUs or its
// machine makes it false.
func hostsApart(groups [][]int, hs []hello) bool {
	owner := map[string]map[int]int{} // machine: CPU: the host running on it
	for g, ranks := range groups {
		for _, r := range ranks {
			if r >= len(hs) || hs[r].Machine == "" || len(hs[r].CPUs) == 0 {
				return false
			}
			cpus := owner[hs[r].Machine]
			if cpus == nil {
				cpus = map[int]int{}
				owner[hs[r].Machine] = cpus
			}
			for _, c := range hs[r].CPUs {
				if h, ok := cpus[c]; ok && h != g {
					return false
				}
				cpus[c] = g
			}
		}
	}
	return true
}

// twoLevels is rank 0's choice of the two levels where Config.Hierarchy
// does not ask for them: ranks on two hosts or more, some rank's machine
// crowded, the hosts' CPUs apart, and nothing in cfg that fixes the
// algorithms (Given, Allreduce, NoPosts, AcrossCrowded).
func twoLevels(groups [][]int, hs []hello, cfg Config) bool {
	return len(groups) >= 2 && cfg.Given == nil && cfg.Allreduce == 0 && !cfg.NoPosts && !cfg.AcrossCrowded &&
		anyCrowded(hs) && hostsApart(groups, hs)
}
