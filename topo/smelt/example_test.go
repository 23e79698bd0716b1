package smelt_test

import (
	"fmt"
	"log"

	"github.com/plexus-hpc/plexus/topo/smelt"
)

func ExampleReadMachineDB() {
	m, err := smelt.ReadMachineDB("../../data/smelt/machinedb/intel_xeon_e5_v2_2x10", smelt.Options{})
	if err != nil {
		log.Fatal(err)
	}
	p, c, n := m.Counts()
	fmt.Printf("%s: %d CPUs, %d packages, %d cores, %d nodes at %.2f GHz\n", m.Name, m.N(), p, c, n, m.Provenance.FreqGHz)
	fmt.Printf("CPU 0 sends to CPU 10 in %.1f ns (%.0f cycles)\n",
		m.Send.Mean[0][10], smelt.Cycles(m.Send.Mean[0][10], m.Provenance.FreqGHz))
	// Output:
	// intel_xeon_e5_v2_2x10: 20 CPUs, 2 packages, 20 cores, 2 nodes at 2.50 GHz
	// CPU 0 sends to CPU 10 in 82.8 ns (207 cycles)
}

func ExampleReadBarrelfish() {
	m, err := smelt.ReadBarrelfish("../../data/smelt/barrelfish", "tomme", "NUMA", smelt.Options{})
	if err != nil {
		log.Fatal(err)
	}
	_, c, n := m.Counts()
	fmt.Printf("%s: %d threads, %d cores, %d nodes\n", m.Name, m.N(), c, n)
	// Output:
	// tomme_NUMA: 16 threads, 8 cores, 2 nodes
}
