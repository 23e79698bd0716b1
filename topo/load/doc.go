// Package load opens a machine model from any of the formats the topo
// packages read, deciding by the path and the file's content:
//
//   - a model JSON file written by topo.Model.WriteFile (content starts
//     with '{') → topo.ReadFile;
//   - a Smelt machinedb directory (contains lscpu.txt) → smelt.ReadMachineDB;
//   - a Barrelfish matrix, either the path of its send_<machine>_<variant>
//     (or receive_...) file or "DIR:machine_variant" → smelt.ReadBarrelfish;
//   - an hwloc XML topology (content starts with '<') → hwloc.ReadFile.
//
// Usage:
//
//	m, err := load.Open("data/smelt/machinedb/intel_xeon_e5_v2_2x10")
//	m, err = load.Open("data/smelt/barrelfish:gruyere_NUMA")
//	m, err = load.Open("data/hwloc/x86-AMD-17h-Zen-2xEpyc-7451.xml")
//	if err == nil && !m.HasCosts() {
//		err = topo.Estimate(m, topo.DefaultEstimate())
//	}
//
// Smelt and Barrelfish data are read with default smelt.Options (clock from
// the data or the machine table). Errors are prefixed with "load:" or by
// the reader's own package name.
package load
