package load_test

import (
	"fmt"
	"log"

	"github.com/plexus-hpc/plexus/topo/load"
)

func ExampleOpen() {
	for _, spec := range []string{
		"../../data/smelt/machinedb/intel_xeon_e5_v2_2x10",
		"../../data/smelt/barrelfish:gottardo_NUMA",
	} {
		m, err := load.Open(spec)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s (%s): %d CPUs, %d nodes\n", m.Name, m.Provenance.Source, m.N(), len(m.Nodes))
	}
	// Output:
	// intel_xeon_e5_v2_2x10 (smelt): 20 CPUs, 2 nodes
	// gottardo_NUMA (barrelfish): 32 CPUs, 4 nodes
}
