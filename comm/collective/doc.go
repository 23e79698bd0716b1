// Package collective runs collective operations across the ranks of a
// comm.World — Broadcast, Reduce, Allreduce, Barrier, Gather and Allgather —
// on trees that the tree generator plans over a model of the ranks, with
// the very member code that runs them between cores in one process
// (package coll).
//
//	w, err := comm.Join(ctx)
//	if err != nil { ... }
//	c, err := collective.New(ctx, w, collective.Config{Topology: tree.Adaptive})
//	if err != nil { ... }
//	local := []float64{1, 2, 3, 4} // this rank's values
//	sum := make([]float64, len(local))
//	err = collective.AllreduceValues(ctx, c, local, sum, func(a, b float64) float64 { return a + b })
//	buf := make([]byte, 1024)
//	err = c.Broadcast(ctx, 0, buf) // rank 0's buf, everywhere
//	err = c.Barrier(ctx)
//
// Every rank calls New, then the same collectives in the same order with
// the same roots and lengths, from one goroutine at a time (as in MPI).
// Point-to-point traffic on the world goes on meanwhile, from any
// goroutines; it never meets the collectives' messages.
//
// Every collective takes a context.Context first, then the root where it
// has one, then its buffers; it returns ctx.Err() unchanged when ctx
// ends. Numbers are reduced with the generic ReduceValues and
// AllreduceValues; Comm.Reduce and Comm.Allreduce are their byte-level
// forms, for element types of the caller's own. Package coll offers the
// same operations under the same names to teams of goroutines in one
// process.
//
// # How it works
//
// New first learns what messages between ranks cost: by timing a short
// ping-pong between every pair (Measure; Config.Samples round trips per
// pair, the pairs of a round-robin tournament timed in parallel rounds),
// or from host names alone (Placement). Rank 0 gathers the results, makes
// a topo.Model whose CPUs are the ranks and whose NUMA nodes are the hosts,
// plans the trees on it (tree.Build, or tree.BestPair for tree.Best) and
// sends them to every rank, so that all run on identical trees.
//
// Each rank then makes its one member of a coll team (coll.NewMember),
// whose links to its tree neighbours are comm.Links: channels on a
// communicator id of their own, with a window per direction, that fail
// when the peer is lost. The broadcast, reduction, barrier and gather are
// coll's, unchanged; buffers longer than Config.MaxMessage go in pieces.
//
// The trees have one root, Root (rank 0 unless Config.Root says
// otherwise). A collective rooted at another rank takes one more hop
// between that rank and the trees' root.
//
// # Failures
//
// Nothing waits forever. A lost peer fails the links to it; a collective
// that fails at one rank — a lost peer, a length that disagrees, a context
// that ends — aborts the communicator's channels at every rank, so that
// ranks waiting for that one fail too, with comm.ErrLinkAborted. The
// communicator is then unusable: its later collectives fail with
// ErrClosed wrapping the first failure; make a new one. A collective that
// needs a rank of a closed world fails with an error wrapping
// comm.ErrClosed.
//
// # Waiting
//
// Members wait as coll's do: they poll their links, pause, yield, then
// nap. Across processes a message takes tens of microseconds, so waits
// for it reach the naps; see BenchmarkCollective.
package collective
