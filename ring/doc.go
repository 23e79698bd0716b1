// Package ring is a single-producer single-consumer queue of
// cache-line-sized slots, after the UMP channel Smelt inherits from
// Barrelfish (Smelt §4.1). It carries messages between processes in
// transport/shm's segments and between goroutines in coll.
//
// A Ring lives on a byte region it is given — a heap allocation (NewHeap)
// or memory mapped into several processes — and keeps nothing but integers
// there. New initialises a region; Attach validates one created elsewhere.
// Each 64-byte slot carries an 8-byte control word, written only by the
// sender and stored last, and 56 payload bytes; longer messages (up to
// MaxMessage, half the ring) span consecutive slots. The receiver publishes
// how far it has read on a separate line, only every half ring, and the
// sender looks at that line only when its cached copy says the ring is
// full, so in steady state the two sides share no written line but the
// slots themselves.
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
// make progress: a waiter gives the CPU up after SpinIterations polls.
//
// # Performance
//
// BenchmarkPingPong and BenchmarkStream compare the ring with raw atomics
// and channels. BenchmarkPingPongPaired alternates the ring, the atomic
// ping-pongs and bare ping-pongs on the ring's layout (floorPPs) in short
// bursts and reports medians and ratios, which hold on a noisy host where
// single runs do not. On a 2-core KVM guest (AMD EPYC) a ring round trip
// of 8-byte messages took 120–155 ns, 2.1–2.4× the round trip over one
// word both goroutines spin on and write and 1.2–1.3× the one over two
// words with one writer each; two unbuffered channels between pinned
// goroutines took 50–80 µs. Streaming reached 24–28 M messages/s,
// against 3.6 M for a buffered channel. The single shared word is a floor
// no queue pair reaches: it lets one cache line carry both directions,
// while Smelt's design (and any ring) gives each line a single writer,
// which alone costs 1.7–1.9× on this machine. A ring also moves to a fresh
// slot line every message, which cost 12–26 ns more per round trip than
// reusing one; the sender wins that back by storing into the next free
// slot right after publishing a message (see warm). The payload store
// before the control word and the bookkeeping of a general message
// (length, flow control, copy) cost the rest, about 20 ns.
// docs/benchmarks.md has the runs.
package ring
