package p2prank

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/plexus-hpc/plexus/bench"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/internal/cliflag"
	"github.com/plexus-hpc/plexus/internal/cpuprof"
)

// ErrUsage reports options Run cannot run with.
var ErrUsage = errors.New("p2prank: bad options")

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
	algorithms bool // coll also times each allreduce algorithm (allreducealgo.go)
	rotate     int  // with algorithms: the allreduces' order starts at this one (allreducealgo.go)
	hierarchy  bool // coll runs with collective.Config.Hierarchy
}

// Run is one rank of a job: it joins the world of the job it was started
// in (comm.JoinWith), runs the case args name, and, on rank 0, writes one
// bench.PeerLine per result to stdout. Notes go to stderr. It returns
// flag.ErrHelp for -h, an error wrapping ErrUsage for bad options, and
// ctx's error or the world's when the job fails.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	return run(ctx, o, stdout, stderr)
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{}
	fs := flag.NewFlagSet("p2prank", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.bench, "bench", "latency", "latency, bw, msgrate, coll, latency_mt or msgrate_mt")
	sizes := fs.String("s", "", "comma-separated message sizes in bytes (default 1 B to 4 MiB, powers of two)")
	gs := fs.String("g", "1", "comma-separated goroutine counts for latency_mt and msgrate_mt")
	fs.IntVar(&o.base, "n", 0, "iterations for messages up to 8 KiB (default per bench, as in bench/peers)")
	fs.IntVar(&o.window, "w", 64, "messages in flight for bw and msgrate")
	fs.StringVar(&o.transport, "transport", "tcp", "transport between ranks: tcp, shm (every rank on this host) or auto (shm within a host, tcp between hosts)")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write each rank's CPU profile of the run to `FILE`.RANK (pgo.sh merges them into default.pgo)")
	fs.BoolVar(&o.serialized, "serialized", false, "join a serialized world (comm.Config.Serialized: one goroutine at a time; not for latency_mt and msgrate_mt)")
	fs.BoolVar(&o.algorithms, "algorithms", false, "coll also times the 8-byte allreduce with each algorithm forced (allreduce-trees, allreduce-doubling; across hosts also allreduce-hier and allreduce-across)")
	fs.IntVar(&o.rotate, "rotate", 0, "with -algorithms: time the allreduces (the default one among them) in their usual order rotated left by `K`, so that runs with K = 0, 1, 2, ... give each the same share of the first and last places")
	fs.BoolVar(&o.hierarchy, "hierarchy", false, "coll runs its collectives in two levels across hosts (collective.Config.Hierarchy)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	if err := cliflag.Parse(fs, args, ErrUsage); err != nil {
		return o, err
	}
	return o, o.finish(*sizes, *gs)
}

// finish fills in what the flags leave to defaults and checks the rest.
func (o *options) finish(sizes, gs string) error {
	if _, ok := defaultBase[o.bench]; !ok {
		return fmt.Errorf("%w: -bench %q: want latency, bw, msgrate, coll, latency_mt or msgrate_mt", ErrUsage, o.bench)
	}
	if o.transport != comm.TransportTCP && o.transport != comm.TransportSHM && o.transport != comm.TransportAuto {
		return fmt.Errorf("%w: -transport %q: want tcp, shm or auto", ErrUsage, o.transport)
	}
	if o.serialized && strings.HasSuffix(o.bench, "_mt") {
		return fmt.Errorf("%w: -serialized: %s runs many goroutines at once", ErrUsage, o.bench)
	}
	if o.base < 0 || o.window < 1 {
		return fmt.Errorf("%w: -n %d, -w %d: want n ≥ 0 and w ≥ 1", ErrUsage, o.base, o.window)
	}
	if o.base == 0 {
		o.base = defaultBase[o.bench]
	}
	var err error
	if o.sizes, err = parseSizes(sizes); err == nil {
		o.goroutines, err = parseGoroutines(gs)
	}
	return err
}

// defaultBase matches the defaults of the C programs; the multi-goroutine
// cases share theirs out among the pairs (bench.MTIters).
var defaultBase = map[string]int{"latency": 10000, "bw": 100, "msgrate": 1000, "coll": 10000, "latency_mt": 1000, "msgrate_mt": 2000}

func parseGoroutines(s string) ([]int, error) {
	var gs []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > bench.MaxGoroutines {
			return nil, fmt.Errorf("%w: -g: %q is not a goroutine count from 1 to %d", ErrUsage, f, bench.MaxGoroutines)
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
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: -s: %q is not a size in bytes", ErrUsage, f)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

func run(ctx context.Context, o options, stdout, stderr io.Writer) error {
	w, err := comm.JoinWith(ctx, comm.Config{Transport: o.transport, Serialized: o.serialized})
	if err != nil {
		return err
	}
	defer w.Close()
	if o.cpuprofile != "" {
		stop, err := cpuprof.Start(fmt.Sprintf("%s.%d", o.cpuprofile, w.Rank()))
		if err != nil {
			return err
		}
		defer stop()
	}
	if o.serialized && o.transport == comm.TransportSHM && !w.Serialized() {
		fmt.Fprintln(stderr, "p2prank: -serialized, but the world is not (its transport is not passive)")
	}
	r := &rank{w: w, ctx: ctx, o: o, out: stdout}
	if err := r.bench(); err != nil {
		return err
	}
	return r.finish()
}
