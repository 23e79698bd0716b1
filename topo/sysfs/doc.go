// Package sysfs discovers the topology of a Linux machine from sysfs: its
// online CPUs, which package and physical core each belongs to, which CPUs
// share an L2 or L3 cache, and the NUMA nodes with their distances and
// memory sizes. The result is a *topo.Model without costs (Send and Recv
// are nil); estimating or measuring those is left to other packages.
//
// For the running machine:
//
//	m, err := sysfs.Local()
//	if err != nil {
//		return err
//	}
//	packages, cores, nodes := m.Counts()
//
// Discover reads a sysfs tree rooted anywhere, which is how the tests use
// fixture directories and how a copy of the files listed below, taken on
// another machine, can be read:
//
//	m, err := sysfs.Discover("/tmp/othermachine/sys")
//
// Files read, relative to the root:
//
//	devices/system/cpu/online                          required
//	devices/system/cpu/cpuN/topology/physical_package_id, die_id, core_id
//	devices/system/cpu/cpuN/cache/indexK/level, type, shared_cpu_list
//	devices/system/node/nodeN/cpulist                  required if nodeN exists
//	devices/system/node/nodeN/distance, meminfo
//
// Missing optional files leave the corresponding information unknown (a
// CPU with no cache directory has L2 and L3 of -1; without node directories
// the machine is one node 0 and Distance is nil). Files that exist but cannot
// be parsed are errors that name the file.
package sysfs
