// Package bench holds the benchmark drivers behind `plexus bench`: each
// runs one communication pattern on goroutines pinned to CPUs and reports
// nanoseconds per operation, so that Plexus's rings and collectives can be
// compared, in one run, with what a Go programmer would otherwise write
// (channels, sync.Cond, sync.WaitGroup, atomics).
//
//	results, err := bench.Coll(ctx, bench.Config{Quick: true}, nil)
//	bench.WriteJSON(os.Stdout, results)
//
// Result names are stable across versions so results can be compared:
// bench is pingpong, stream, barrier, bcast or reduce; impl names the
// implementation (ring, atomic, chan, cond, waitgroup, dissemination,
// team-<topology>).
//
// P2P, behind `plexus bench p2p`, measures between ranks (processes) of
// this host over TCP loopback or shared memory: it runs the rank program
// (package p2prank; P2PConfig.Rank, which plexus sets to itself, or
// bench/p2pprog built from source) and, with P2PConfig.Peers, the Open MPI
// programs of bench/peers, compiled with mpicc from sources this package
// carries, as jobs, alternating, and reports medians (P2PResult) with the
// transport's targets (P2PTargets):
//
//	res, err := bench.P2P(ctx, bench.P2PConfig{Transport: "shm", Ranks: []int{2}, Peers: true})
//	bench.WriteP2PTable(os.Stdout, res)
//
// With P2PConfig.Hosts it measures between hosts instead, over TCP: its
// ranks start as plexus run starts them there, through P2PConfig.SSH, and
// Open MPI's mpirun runs on the first host through the same command:
//
//	res, err := bench.P2P(ctx, bench.P2PConfig{Hosts: []string{"h1", "h2"}, SSH: []string{"./agent"}, Peers: true})
//
// Gas, behind `plexus bench gas`, does the same for packages am and pgas
// (package gasrank) against bench/peers' am.c and gups.c.
//
// Its benches are latency, bandwidth, msgrate, barrier, bcast and
// allreduce and, with P2PConfig.Goroutines, the multi-goroutine cases
// latency_mt and msgrate_mt (Plexus only; see MTBenches for what they
// measure), whose results carry their goroutine count.
package bench
