package hwloc_test

import (
	"fmt"
	"log"

	"github.com/plexus-hpc/plexus/topo/hwloc"
)

func ExampleReadFile() {
	m, err := hwloc.ReadFile("../../data/hwloc/16amd64-4distances.xml", hwloc.Options{})
	if err != nil {
		log.Fatal(err)
	}
	packages, cores, nodes := m.Counts()
	fmt.Printf("%s: %d CPUs, %d packages, %d cores, %d NUMA nodes\n", m.Name, m.N(), packages, cores, nodes)
	fmt.Printf("distance node 0 to 1: %v\n", m.Distance[0][1])
	fmt.Println(m.Provenance.CPUModel)
	// Output:
	// 16amd64-4distances: 16 CPUs, 8 packages, 16 cores, 8 NUMA nodes
	// distance node 0 to 1: 20
	// Dual Core AMD Opteron(tm) Processor 865
}
