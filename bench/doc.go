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
package bench
