package graph_test

import (
	"fmt"

	"github.com/plexus-hpc/plexus/graph"
)

// A small Graph500 graph, searched and validated in one process; the
// ranks of a job do the same with Dist and Run.
func Example() {
	k, err := graph.Graph500(10, 1)
	if err != nil {
		panic(err)
	}
	edges := make([][2]int64, 0, k.Edges())
	for i := range k.Edges() {
		u, v := k.Edge(i)
		edges = append(edges, [2]int64{u, v})
	}
	g := graph.FromEdges(0, k.Vertices(), edges)
	root := edges[0][0]
	parent, level := graph.SerialBFS(&g, root)
	fmt.Println("validated:", graph.Validate(parent, level, root, &g) == nil)
	parent[root] = -1 // break rule 1
	fmt.Println(graph.Validate(parent, level, root, &g) != nil)
	// Output:
	// validated: true
	// true
}
