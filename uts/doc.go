// Package uts is the Unbalanced Tree Search benchmark on Plexus: UTS's
// trees, generated exactly as UTS generates them, and UTS-Mem, Grappa's
// variant that first builds the tree in memory across ranks and then
// times a traversal of it.
//
// A tree is given by UTS's parameters (Params, with T1 and T3 for the
// sample trees). A node's state is a SHA-1 digest: the root's hashes the
// seed, each child's hashes its parent's digest and its index, and the
// number of children is drawn from the digest by the tree type's law
// (binomial, geometric with a shape function of depth, hybrid or
// balanced). Search walks a tree sequentially:
//
//	c := uts.Search(uts.T1()) // 4,130,071 nodes, 3,305,118 leaves, depth 10
//
// Mem runs on every rank of a job, over package task (work stealing,
// completion) and am:
//
//	m, err := uts.NewMem(ctx, w, c, uts.T1(), uts.MemConfig{}) // c: comm/collective
//	err = m.Build(ctx)            // tasks store nodes where they run
//	counts, err := m.Traverse(ctx) // tasks follow the child pointers
//	err = m.Close(ctx)
//
// Build starts one task at rank 0; a task generates up to
// MemConfig.Budget nodes depth first into its rank's store, then splits
// off the largest subtree left on its stack as a task for the rank that
// stores the fewest nodes as far as it knows (idle ranks may still steal
// the ones it keeps), so the tree spreads evenly over the ranks. A node's
// children are global pointers (rank, index); a child built on another
// rank than its parent's slot is linked by an active message to the
// slot's rank. Traverse starts at the root and follows the pointers,
// sending a pointer homed on another rank to that rank as a task; the
// work it splits off stays on its rank, where the nodes are. The counts
// are the same on every rank count; Stored and Visited tell how the work
// spread.
//
// The plexus command runs it as "plexus uts".
package uts
