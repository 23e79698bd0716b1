// Package p2prank is the Plexus side of "plexus bench p2p": one rank of a
// job that makes the same measurements as the Open MPI programs in
// bench/peers, over package comm, with the same options and output (one
// bench.PeerLine per result, from rank 0). The plexus binary runs it as
// the hidden verb "plexus bench p2p rank", so the benchmark needs nothing
// but that binary; bench/p2pprog wraps it as a program of its own. Start
// it as a job of at least two ranks:
//
//	plexus run -n 2 -- plexus bench p2p rank -bench latency -s 1,8,1024 -n 1000
//
// or, from Go, in a process that plexus run (package launch) started:
//
//	err := p2prank.Run(ctx, []string{"-bench", "coll", "-transport", "shm"}, os.Stdout, os.Stderr)
//
// -bench is latency (ping-pong, one-way µs), bw (windows of non-blocking
// sends, MB/s), msgrate (8-byte windows, messages/s) or coll (barrier,
// 8-byte bcast and allreduce, µs per op averaged over the ranks), or, with
// -g listing goroutine counts, latency_mt and msgrate_mt (8-byte messages
// between that many goroutine pairs at once; see package bench).
// -transport is tcp (TCP loopback, the default) or shm (shared memory only;
// every rank must run on this host).
package p2prank
