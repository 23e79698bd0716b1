// Package hwloc imports hwloc XML topologies (the output of
// "lstopo --of xml", format version 2.x) into a *topo.Model.
//
// The model gets CPUs, NUMA nodes and the NUMA latency matrix only; Send
// and Recv stay nil for a cost estimator to fill in later.
//
//	m, err := hwloc.ReadFile("machine.xml", hwloc.Options{})
//	if err != nil {
//		return err
//	}
//	packages, cores, nodes := m.Counts()
//	fmt.Println(m.N(), "CPUs,", packages, "packages,", cores, "cores,", nodes, "NUMA nodes")
//
// # Mapping
//
// Every PU object becomes a topo.CPU whose ID is the PU's os_index; CPUs
// are sorted by ID. Package, Core, L2 and L3 are dense indices (0..)
// assigned in document order to the objects that have imported PUs below
// them. L2 and L3 are -1 for a CPU without such a cache (only unified or
// data caches count: the v2 L2Cache/L3Cache types, or the older generic
// Cache type by its depth attribute). A file without Package objects is
// one package; a PU without a Core ancestor is a core by itself. Groups,
// Dies and other unknown types are transparent; I/O and Misc objects are
// ignored.
//
// NUMANode objects, which v2 attaches as memory children anywhere in the
// tree, become Model.Nodes sorted by os_index. A CPU's node is the
// imported node whose cpuset contains it, the smallest such cpuset if
// there are several (memory attached nearest to the PU) and the lowest
// os_index on a tie (DRAM before KNL MCDRAM or HBM, which Linux numbers
// after it).
//
// Distance comes from the <distances2> matrix of NUMANode objects named
// NUMALatency, or else the first NUMANode matrix whose kind says latency,
// mapped by os_index or gp_index as its indexing attribute says.
// Bandwidth, heterogeneous and other object types' matrices are ignored.
// A matrix that does not cover every imported node is dropped (Distance
// nil) with a note in Provenance.Notes.
//
// # Allowed sets
//
// By default only PUs in the root object's allowed_cpuset and NUMA nodes
// in its allowed_nodeset are imported, as lstopo shows them; the distance
// matrix is cut to the imported nodes. One exception: an allowed PU whose
// local node is disallowed keeps that node, because the model needs every
// CPU's memory locality. Options.IncludeDisallowed imports everything.
//
// # Provenance
//
// Source is "hwloc", Host the root's HostName info, CPUModel the first
// Package's CPUModel info (else any object's). Platform infos such as
// DMIProductName, PlatformModel and Architecture go to Notes. Read names
// the model after the host ("hwloc" without one); ReadFile after the file.
//
// # Errors
//
// Malformed XML, versions other than 2.x, missing or malformed attributes
// the model needs, bad bitmaps and inconsistent distance matrices are
// errors that start with "hwloc:" and name the object or attribute at
// fault. Attributes the model does not use are not checked.
package hwloc
