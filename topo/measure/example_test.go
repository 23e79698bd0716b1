package measure_test

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/topo/measure"
	"github.com/plexus-hpc/plexus/topo/sysfs"
)

// Summarize drops the largest 10% before averaging: of ten samples the
// 900 ns one, taken while the thread was interrupted, goes.
func ExampleSummarize() {
	mean, sd := measure.Summarize([]float64{61, 60, 62, 900, 61, 59, 63, 61, 60, 62}, measure.DropFrac)
	fmt.Printf("%.1f ± %.1f ns\n", mean, sd)
	// Output: 61.0 ± 1.2 ns
}

// Measure this machine and write its model with measured costs.
func ExamplePairwise() {
	m, err := sysfs.Local()
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := measure.Pairwise(context.Background(), measure.Config{Quick: true}, nil)
	if err != nil {
		fmt.Println(err) // e.g. "measure: need at least 2 CPUs"
		return
	}
	m, err = measure.Merge(m, r)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("CPU %d sends to CPU %d in %.0f ns\n", m.CPUs[0].ID, m.CPUs[1].ID, m.Send.Mean[0][1])
}
