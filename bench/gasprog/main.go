// Gasprog is the Plexus side of "plexus bench gas": active messages of
// package am and delegates of package pgas between the ranks of a job,
// each result printed by rank 0 as one bench.PeerLine. Start it as a job:
//
//	plexus run -n 2 -- gasprog -bench am -mode direct -n 100000
//
// -bench is am (32-byte Posts from rank 0 to rank 1, messages/s; -mode
// aggregated, am's default Config, or direct, FlushBytes 1),
// delegate_latency (blocking FetchAndAdd from rank 0 on an element homed at
// rank 1, µs per round trip) or gups (every rank posts -n Adds of 1 to
// random elements of a global array of 2^-log int64, then waits with
// Heap.Quiet; updates/s of the whole job).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"
)

type options struct {
	bench     string
	mode      string
	transport string
	n         int
	log       int
	timeout   time.Duration
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
		err = run(ctx, o)
		cancel()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gasprog:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("gasprog", flag.ContinueOnError)
	fs.StringVar(&o.bench, "bench", "am", "am, delegate_latency or gups")
	fs.StringVar(&o.mode, "mode", "aggregated", "am's mode: aggregated or direct")
	fs.StringVar(&o.transport, "transport", "tcp", "transport between ranks: tcp or shm")
	fs.IntVar(&o.n, "n", 100000, "timed operations (per rank for gups)")
	fs.IntVar(&o.log, "log", 24, "gups: the global array holds 2^`LOG` int64")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.n < 1 || o.log < 10 || o.log > 30 {
		return o, fmt.Errorf("-n %d, -log %d: want n ≥ 1 and 10 ≤ log ≤ 30", o.n, o.log)
	}
	if o.mode != "aggregated" && o.mode != "direct" {
		return o, fmt.Errorf("-mode %q: want aggregated or direct", o.mode)
	}
	return o, nil
}
