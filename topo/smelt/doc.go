// Package smelt imports the machine data published with the Smelt paper
// (Kaestle et al., "Machine-aware Atomic Broadcast Trees for Multicores",
// OSDI'16) and its Barrelfish-era predecessor measurements into *topo.Model.
//
// Two formats are supported:
//
//   - A Smelt "machinedb" directory (ReadMachineDB): lscpu.txt for the CPUs
//     and NUMA nodes, optionally likwid.txt for cores and sockets and
//     proc_cpuinfo.txt for the model name, and the pairwise-nsend_send /
//     pairwise-nsend_receive files with one "src dst mean sd" line per ordered
//     pair of CPUs, in TSC cycles.
//   - Barrelfish UMP matrices send_<machine>_<variant> and
//     receive_<machine>_<variant> (ReadBarrelfish). These files carry no
//     topology or clock, so the package keeps a table of the known machines
//     (see LookupMachine).
//
// Costs are converted from cycles to nanoseconds by dividing by the clock in
// GHz; Provenance.FreqGHz records the clock used and Cycles converts back.
// In both formats row "src dst" of the receive file is the cost of dst
// receiving from src, stored as Recv.Mean[src][dst], and row "src dst" of
// the send file is stored as Send.Mean[src][dst] (indices are positions in
// Model.CPUs, which are sorted by OS CPU number).
//
// Usage:
//
//	m, err := smelt.ReadMachineDB("data/smelt/machinedb/intel_xeon_e5_v2_2x10", smelt.Options{})
//	if err != nil { ... }
//	cyc := smelt.Cycles(m.Send.Mean[0][1], m.Provenance.FreqGHz)
//
//	names, err := smelt.BarrelfishMachines("data/smelt/barrelfish")
//	m, err = smelt.ReadBarrelfish("data/smelt/barrelfish", "gruyere", "NUMA", smelt.Options{})
//
// All errors are prefixed with "smelt:" and name the file (and line) at fault.
package smelt
