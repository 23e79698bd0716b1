// Package ring is a single-producer single-consumer queue of
// cache-line-sized slots, after the UMP channel Smelt inherits from
// Barrelfish (Smelt §4.1). It carries messages between processes in
// transport/shm's segments and between goroutines in coll.
//
// A Ring lives on a byte region it is given — a heap allocation (NewHeap)
// or memory mapped into several processes — and keeps nothing but integers
// there, so the processes may map it at different addresses. New
// initialises a region; Attach validates one created elsewhere. A message
// of up to 56 bytes takes one 64-byte slot; longer ones, up to MaxMessage
// (half the ring), span several. Messages arrive whole and in order.
// docs/design/ring.md describes the slots and how the two ends avoid
// sharing cache lines.
//
// One goroutine sends and one receives. TrySend and TryRecv never wait;
// Send and Recv spin, then yield, then sleep (see Backoff) and never block
// on a channel or mutex. A Pair is one end of Smelt's queue pair: two rings,
// one each way.
//
//	a, b := ring.NewPairs(64)
//	go func() {
//		buf := make([]byte, 64)
//		n, _ := b.Recv(ctx, buf)
//		b.Send(ctx, buf[:n]) // echo
//	}()
//	a.Send(ctx, []byte("ping"))
//	n, err := a.Recv(ctx, buf)
//
// For the lowest latency pin the two goroutines to different CPUs with
// package affinity. If they share a CPU, or outnumber GOMAXPROCS, they still
// make progress: a waiter gives the CPU up once the spin budget of Plexus's
// waiting policy is spent.
//
// # Performance
//
// Between goroutines pinned to two cores a round trip costs on the order
// of a hundred nanoseconds, about twice one over a single atomic word both
// spin on, and one stream carries tens of millions of small messages a
// second. BenchmarkPingPong and BenchmarkStream compare the ring with raw
// atomics and channels; BenchmarkPingPongPaired alternates them in short
// bursts and reports medians and ratios, which hold on a noisy host.
// docs/benchmarks.md has the runs (sections "Ring round trip taken apart"
// and "In-process runtime: rings and collectives against Go's
// primitives"); docs/design/ring.md says where the time goes.
package ring
