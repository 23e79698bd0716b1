// P2pprog is the Plexus side of "plexus bench p2p": the same measurements
// as the Open MPI programs in bench/peers, over comm, with the same
// options and output (bench.PeerLine, bench.ScaledIters). Start it as a
// job of at least two ranks:
//
//	plexus run -n 2 -- p2pprog -bench latency -s 1,8,1024 -n 1000
//
// -bench is latency (ping-pong, one-way µs), bw (windows of non-blocking
// sends, MB/s), msgrate (8-byte windows, messages/s) or coll (barrier,
// 8-byte bcast and allreduce, µs per op averaged over the ranks), or, with
// -g listing goroutine counts, latency_mt and msgrate_mt (8-byte messages
// between that many goroutine pairs at once; see package bench).
// -transport is tcp (TCP loopback, the default) or shm (shared memory only;
// every rank must run on this host).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/plexus-hpc/plexus/bench"
	"github.com/plexus-hpc/plexus/comm"
)

type options struct {
	bench      string
	sizes      []int
	goroutines []int
	base       int
	window     int
	transport  string
	timeout    time.Duration
	serialized bool
	cpuprofile string
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
		err = run(ctx, o)
		cancel()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "p2pprog:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	o := options{}
	fs := flag.NewFlagSet("p2pprog", flag.ContinueOnError)
	fs.StringVar(&o.bench, "bench", "latency", "latency, bw, msgrate, coll, latency_mt or msgrate_mt")
	sizes := fs.String("s", "", "comma-separated message sizes in bytes (default 1 B to 4 MiB, powers of two)")
	gs := fs.String("g", "1", "comma-separated goroutine counts for latency_mt and msgrate_mt")
	fs.IntVar(&o.base, "n", 0, "iterations for messages up to 8 KiB (default per bench, as in bench/peers)")
	fs.IntVar(&o.window, "w", 64, "messages in flight for bw and msgrate")
	fs.StringVar(&o.transport, "transport", "tcp", "transport between ranks: tcp or shm (every rank on this host)")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write each rank's CPU profile of the run to `FILE`.RANK (pgo.sh merges them into default.pgo)")
	fs.BoolVar(&o.serialized, "serialized", false, "join a serialized world (comm.Config.Serialized: one goroutine at a time; not for latency_mt and msgrate_mt)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var err error
	o.sizes, err = parseSizes(*sizes)
	if err == nil {
		o.goroutines, err = parseGoroutines(*gs)
	}
	if o.base == 0 {
		o.base = defaultBase[o.bench]
	}
	return o, err
}

// defaultBase matches the defaults of the C programs; the multi-goroutine
// cases share theirs out among the pairs (bench.MTIters).
var defaultBase = map[string]int{"latency": 10000, "bw": 100, "msgrate": 1000, "coll": 10000, "latency_mt": 1000, "msgrate_mt": 2000}

func parseGoroutines(s string) ([]int, error) {
	var gs []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > bench.MaxGoroutines {
			return nil, fmt.Errorf("-g: %q is not a goroutine count from 1 to %d", f, bench.MaxGoroutines)
		}
		gs = append(gs, n)
	}
	return gs, nil
}

func parseSizes(s string) ([]int, error) {
	if s == "" {
		var all []int
		for n := 1; n <= 4<<20; n <<= 1 {
			all = append(all, n)
		}
		return all, nil
	}
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("-s: %q is not a size in bytes", f)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

func run(ctx context.Context, o options) error {
	if o.transport != comm.TransportTCP && o.transport != comm.TransportSHM {
		return fmt.Errorf("-transport %q: want tcp or shm", o.transport)
	}
	if o.serialized && strings.HasSuffix(o.bench, "_mt") {
		return fmt.Errorf("-serialized: %s runs many goroutines at once", o.bench)
	}
	w, err := comm.JoinWith(ctx, comm.Config{Transport: o.transport, Serialized: o.serialized})
	if err != nil {
		return err
	}
	defer w.Close()
	if o.cpuprofile != "" {
		stop, err := startProfile(fmt.Sprintf("%s.%d", o.cpuprofile, w.Rank()))
		if err != nil {
			return err
		}
		defer stop()
	}
	if o.serialized && o.transport == comm.TransportSHM && !w.Serialized() {
		fmt.Fprintln(os.Stderr, "p2pprog: -serialized, but the world is not (its transport is not passive)")
	}
	r := &rank{w: w, ctx: ctx, o: o}
	if err := r.bench(); err != nil {
		return err
	}
	return r.finish()
}
