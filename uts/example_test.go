package uts_test

import (
	"fmt"

	"github.com/plexus-hpc/plexus/uts"
)

// T1 with its depth cut to 4, searched sequentially; on ranks, Mem's
// Build and Traverse give the same counts.
func Example() {
	p := uts.T1()
	p.Depth = 4
	c := uts.Search(p)
	fmt.Println(p)
	fmt.Printf("%d nodes, %d leaves, depth %d\n", c.Nodes, c.Leaves, c.Depth)
	// Output:
	// -t 1 -a 3 -d 4 -b 4 -q 0.234375 -m 4 -r 19 -f 0.5
	// 944 nodes, 744 leaves, depth 4
}
