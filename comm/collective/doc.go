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
// # Trees
//
// New is itself collective: it learns what messages between ranks cost,
// by timing Config.Samples round trips between every pair (Measure, the
// default; the pairs are timed in parallel rounds) or from host names
// alone (Placement), and then plans the trees at rank 0 and hands them to
// every rank, so that all run on identical trees (Comm.Trees, Comm.Model).
// Their messages travel on links of their own (comm.World.Link), with a
// window per direction; buffers longer than Config.MaxMessage go in
// pieces.
//
// The trees have one root, Root (rank 0 unless Config.Root says
// otherwise). A collective rooted at another rank takes one more hop
// between that rank and the trees' root. docs/design/collectives.md
// describes the planning and the members.
//
// # Allreduce algorithms
//
// Allreduce runs on the trees, by recursive doubling or by Rabenseifner's
// reduce-scatter and allgather, whichever the simulator finds fastest on
// the model of the ranks for the length of each piece
// (tree.PlanAllreduce); rank 0 makes the choice with the trees and every
// rank follows it (Comm.AllreducePlan). Config.Allreduce forces one
// algorithm, for benchmarks and tests:
//
//	c, err := collective.New(ctx, w, collective.Config{Allreduce: tree.AllreduceDoubling})
//
// Short vectors (at most Comm.PostBytes) skip the plan where shared
// memory allows: on one host they run flat on the collective area; across
// hosts that hold as many ranks each, at least two, and have a CPU per
// rank, each host's ranks fold their inputs on the host's area and every
// rank exchanges the host's partial with its counterparts on the other
// hosts, with no broadcast after (docs/design/collectives.md, "Across
// hosts").
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
// Members wait as coll's do: they poll their links, and through them the
// world's transport, then pause, yield and nap, woken early when a
// message arrives. On a host with more ranks than CPUs an empty poll gives
// the CPU away, as Open MPI's oversubscribed ranks do. BenchmarkCollective
// measures the collectives.
package collective
