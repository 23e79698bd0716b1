// Package tree builds and simulates the broadcast, reduction and barrier
// trees that Plexus's collectives run on (Smelt §2.4–3.4).
//
// A Tree names a root and, for every member of a multicast group, its
// children in send order. Build makes one from a machine model
// (package topo) for a group of CPUs: Smelt's static topologies (binary,
// Fibonacci, sequential, MST, cluster, bad), its adaptive tree (an
// event-based simulation of the broadcast on the model, with send
// reordering and shuffling), and Best, which improves on all of them for a
// chosen operation. Exact finds the optimal broadcast tree for small groups.
// Simulate times any tree on any model, for Smelt's operations (Ops) and
// for ReleaseBarrier, the barrier of coll's in-process teams.
//
//	m, _ := load.Open("data/smelt/machinedb/intel_xeon_e5_v2_2x10")
//	t, err := tree.Build(m, tree.Spec{Topology: tree.Adaptive, Root: tree.AutoRoot})
//	if err != nil { ... }
//	r, _ := tree.Simulate(m, t, tree.Barrier)
//	fmt.Printf("barrier %.0f ns, last %d\n", r.Latency, r.Last)
//
// Everything here is pure: no goroutines, no I/O but the writers, and
// deterministic for a given model and spec.
package tree
