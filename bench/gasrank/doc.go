// Package gasrank is the Plexus side of "plexus bench gas": one rank of a
// job that measures active messages of package am and delegates of package
// pgas, each result printed by rank 0 as one bench.PeerLine. The plexus
// binary runs it as the hidden verb "plexus bench gas rank", so the
// benchmark needs nothing but that binary; bench/gasprog wraps it as a
// program of its own. Start it as a job:
//
//	plexus run -n 2 -- plexus bench gas rank -bench am -mode direct -n 100000
//
// or, from Go, in a process that plexus run (package launch) started:
//
//	err := gasrank.Run(ctx, []string{"-bench", "gups", "-transport", "shm"}, os.Stdout, os.Stderr)
//
// -bench is am (32-byte Posts from rank 0 to rank 1, messages/s; -mode
// aggregated, am's default Config, or direct, FlushBytes 1),
// delegate_latency (blocking FetchAndAdd from rank 0 on an element homed at
// rank 1, µs per round trip) or gups (every rank posts -n Adds of 1 to
// random elements of a global array of 2^-log int64, then waits with
// Heap.Quiet; updates/s of the whole job).
package gasrank
