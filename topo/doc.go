// Package topo is Plexus's machine model: the logical CPUs of a machine with
// their packages, cores, caches and NUMA nodes, the NUMA distance matrix,
// and the pairwise send and receive costs (nanoseconds, with standard
// deviations) that the tree generator simulates (Smelt §3.1–3.2).
//
// A Model comes from discovery of the running machine (package
// topo/sysfs), an hwloc XML file (topo/hwloc), Smelt's machine database
// (topo/smelt), or a model file written by Save. A model with topology but
// no measurements gets estimated costs from Estimate.
//
//	m, err := topo.ReadFile("machine.json")
//	if err != nil { ... }
//	i, _ := m.Index(3)                // position of OS CPU 3
//	cost := m.Send.Mean[i][0]          // ns for CPU 3 to send to CPU index 0
//
// Matrices are indexed by position in Model.CPUs, [sender][receiver]: the
// receive cost Recv.Mean[i][j] is what j pays to receive from i. The file
// format is versioned JSON; see docs/model-format.md.
package topo
