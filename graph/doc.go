// Package graph is the Graph500 benchmark on Plexus: the Kronecker
// generator, a breadth-first search over ranks written the way Grappa's
// is, and the specification's validation; and betweenness centrality
// (SSCA#2's kernel, as Grappa runs it) on the same distributed graph.
//
// The generator computes any edge of the final (relabelled, shuffled)
// list on its own, so each rank makes its share without communication:
//
//	k, err := graph.Graph500(scale, seed) // 2^scale vertices, 16 × 2^scale edges
//	lo, hi := k.Share(rank, ranks)
//	for i := lo; i < hi; i++ {
//		u, v := k.Edge(i)
//		...
//	}
//
// A Dist is one rank's part of the distributed graph: vertex v lives on
// rank v / Chunk with its adjacency list, parent and level, and every
// update of it runs there. Every rank of a job calls the collective
// methods in the same order:
//
//	d, err := graph.NewDist(ctx, w, c, k.Vertices(), graph.DistConfig{}) // c: comm/collective
//	err = d.Build(ctx, k) // each edge sent to its endpoints' homes by active messages
//	res, err := graph.Run(ctx, d, graph.BenchConfig{Scale: scale, EdgeFactor: 16, NBFS: 64, Root: -1, Mode: graph.Hybrid})
//	err = d.Close(ctx)
//
// # Search
//
// The search is level-synchronous. A top-down level sends, for every
// edge out of the frontier, a visit (vertex, parent) to the vertex's
// home as a batch of active messages (package am, which aggregates
// them further); the home takes the first visit of each vertex, as a
// Grappa delegate would, from a queue that its own goroutine drains, so
// vertex data needs no atomics. Mode Hybrid is Beamer's
// direction-optimising search: while the frontier is large, a bottom-up
// level shares the frontier as a bitmap (an allgather) and each
// unvisited vertex looks for a parent among its own neighbours, with no
// other message.
//
// DistConfig.Impl = Tasks runs the same search in Grappa's style on the
// runtime's layers: each level is a task.Pool.ForLocal loop over the
// rank's own frontier or vertices, the parents live in a pgas global
// array homed with their vertices, a visit is a compare-and-swap on it
// at the home carried by a task spawned there, and a level ends at its
// task group's global completion. The default, Loops, runs the levels
// on the rank's goroutines over plain arrays, and is faster.
//
// # Betweenness
//
// Dist.Centrality is Brandes' betweenness centrality from given
// sources (RunBC samples them and times the run, as SSCA#2 reports
// it): per source, top-down levels that count shortest paths (sigma) at
// each vertex's home, then the levels again from the deepest up, each
// sending its vertices' dependencies to their neighbours' homes, where
// the vertices one level up add them. SerialBrandes is the sequential
// reference. With Loops the values travel as batches of active
// messages between barriers. With Tasks each level is a
// task.Pool.ForLocal loop over chunks of the rank's vertices in that
// level; level, sigma and delta are pgas global arrays homed with their
// vertices (in the same heap as the search's parents); a path count or
// a dependency for another rank's vertex goes there in a task of the
// level's group, which applies it by delegate (a CompareAndSwap claims
// an unreached vertex for the next level, FetchAndAdd adds); and a
// level ends at its group's global completion.
//
//	bc, err := d.Centrality(ctx, sources) // this rank's vertices' scores
//	res, err := graph.RunBC(ctx, d, k.Edges(), graph.BCConfig{K: 16, Seed: 1})
//
// # Validation
//
// Each of the specification's five rules is a pure function of the
// parent and level arrays and an adjacency list (CheckTree,
// CheckLevels, CheckEdges for rules 3 and 4, CheckTreeEdges); a failure
// is a *Violation naming its rule and wrapping ErrInvalid. Run gathers
// the arrays on every rank, checks each rank's own vertices and agrees
// on the first failing rule. TEPS divides the input edges in the root's
// component (a self-loop once) by the search's time, as the reference
// implementation counts them.
//
// The plexus command runs all of this as "plexus graph bfs" and
// "plexus graph bc".
package graph
