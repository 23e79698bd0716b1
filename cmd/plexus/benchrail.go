package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/plexus-hpc/plexus/bench"
)

func init() { addCommand(benchRailCmd) }

var benchRailCmd = &command{
	name:    "bench rail",
	summary: "measure multirail transfers between two hosts, side by side with MPTCP and Open MPI",
	usage: `bench rail --host HOSTS | --hostfile FILE [--rsh CMD] [--rails CIDRS] [--quick] [--compete] [--runs N] [--impls LIST] [--slice BYTES] [--timeout DURATION] [--json] [--svg FILE]

Runs a job of two ranks, one on each of two hosts, as plexus rail sample
does (--host, --hostfile, --rsh and --rails as there; each rank this
binary as the verb "plexus bench rail rank"). The ranks find the rails
between the hosts, the first host samples each, then times, over fresh
connections for every case:
  bandwidth  a stream of messages of 64 KiB to 64 MiB (64 KiB, 1 MiB and
             8 MiB with --quick) from the first host to the second,
             several in flight, Mbit/s
  latency    a ping-pong of 4 B to 4 KiB messages, one-way µs; and
             aggregated, µs per message of a stream of them, up to 64
             in flight, which a Link sends together
for each impl:
  single     a multirail Link over the fastest rail alone
  iso        a Link splitting every message equally among the rails
  weighted   a Link splitting by the rails' sampled bandwidths (Open MPI, UCX)
  plexus     a Link with NewMadeleine's split: chunks that finish together
  mptcp      one Linux MPTCP connection on the fastest rail, its subflows
             on the other rails where the hosts have "ip mptcp endpoint"s
             (testdata/cluster/rails.sh sets them up); a note says when
             the kernel refuses MPTCP or fell back to TCP
  openmpi    bench/peers/railbw.c, compiled with mpicc where this runs,
             under mpirun from the first host (--rsh as its
             plm_rsh_agent) with the TCP BTL on the rails' networks; the
             program's path must be the same on both hosts (a shared or
             the same file system)
  ideal      no transfer: the sum of the rails' sampled bandwidths
  tcp        (only when --impls names it) one plain TCP connection on
             the fastest rail, Go's blocking reads and writes: what a Go
             program gets from one link without the Links' polling
  tcppoll    (only when --impls names it, Linux) the same connection
             taken out of Go's netpoller and read by a spin of
             non-blocking reads, as a Link's polling Recv reads: the
             floor of the Links' small-message path
--compete runs every bandwidth case again with a bulk TCP flow on the
fastest rail for the first half of each impl's run: from its first
timed message until half of its messages are through. The output ends with the ratios against the targets: plexus
≥ 0.97 of ideal at 1 MiB and over, ≥ 1.15× iso, ≥ 1.1× weighted under
the competing flow, ≥ 1× Open MPI. --runs N runs every impl's cases N
times, in N rounds of every impl one after the other (Open MPI's program
once a round), and reports each case's median. --cases runs only the
bandwidth or the latency cases; --iters sets the round trips of each
latency case (and Open MPI's). --timeout ends the job as failed after
that long (default: 10 minutes a round). --slice sets the Links'
slice size (multirail.Config.Slice; -1: post every message whole). --json prints one JSON
array of rows (bench, impl, rails, size, value, unit, compete,
aggregated, bytes, runs, note); --svg plots bandwidth against size, one
line per impl, dashed under the competing flow.`,
	flags: func() *flag.FlagSet { return new(benchRailOpts).flagSet() },
	run:   runBenchRail,
}

// benchRailOpts are the command's flags; the rank flags (mpi-*) are set
// by the command for its ranks, not by users.
type benchRailOpts struct {
	host, hostfile, rsh, rails, impls, svg string
	cases                                  string
	quick, compete, json                   bool
	runs, slice, iters                     int
	timeout                                time.Duration
	mpiProg, mpiHosts, mpiRsh              string
}

func (o *benchRailOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("bench rail", flag.ContinueOnError)
	fs.StringVar(&o.host, "host", "", "the two `HOSTS`, comma-separated")
	fs.StringVar(&o.hostfile, "hostfile", "", "`FILE` of hosts, as for plexus run (the first two are used)")
	fs.StringVar(&o.rsh, "rsh", "", "`CMD` that runs a rank on another host, as for plexus run (and mpirun's plm_rsh_agent)")
	fs.StringVar(&o.rails, "rails", os.Getenv("PLEXUS_RAILS"), "only rails inside these `CIDRS`, comma-separated")
	fs.StringVar(&o.impls, "impls", strings.Join(railImpls, ","), "the impls to run, a comma-separated `LIST`")
	fs.StringVar(&o.svg, "svg", "", "write a plot of bandwidth against size to `FILE`")
	fs.BoolVar(&o.quick, "quick", false, "three bandwidth sizes, two latency sizes, fewer bytes: a smoke test")
	fs.BoolVar(&o.compete, "compete", false, "also run the bandwidth cases with a competing flow on the fastest rail")
	fs.BoolVar(&o.json, "json", false, "print a JSON array of rows instead of tables")
	fs.IntVar(&o.runs, "runs", 1, "run every impl's cases in `N` rounds and report each case's median")
	fs.DurationVar(&o.timeout, "timeout", 0, "end the job as failed after `DURATION` (0: 10 minutes a round)")
	fs.StringVar(&o.cases, "cases", strings.Join(railCases, ","), "the benches to run, a comma-separated `LIST` of bandwidth, latency")
	fs.IntVar(&o.iters, "iters", 0, "`N` round trips per latency case (0: 5000, 100 with --quick)")
	fs.IntVar(&o.slice, "slice", 0, "the Links post messages over `BYTES` a slice at a time (multirail.Config.Slice: 0 the default, -1 never)")
	fs.StringVar(&o.mpiProg, "mpi-prog", "", "(set for the ranks) the compiled Open MPI peer, `PATH`")
	fs.StringVar(&o.mpiHosts, "mpi-hosts", "", "(set for the ranks) the two `HOSTS` for mpirun")
	fs.StringVar(&o.mpiRsh, "mpi-rsh", "", "(set for the ranks) mpirun's plm_rsh_agent, `CMD`")
	return fs
}

// railImpls are the impls in the order they run and are shown, by
// default; --impls may add railExtraImpls.
var (
	railImpls      = []string{"single", "iso", "weighted", "plexus", "mptcp", "openmpi"}
	railExtraImpls = []string{"tcp", "tcppoll"}
)

// parseImpls checks a comma-separated list of impls.
func parseImpls(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !contains(railImpls, f) && !contains(railExtraImpls, f) {
			return nil, fmt.Errorf("--impls: unknown impl %q, want some of %s,%s", f, strings.Join(railImpls, ","), strings.Join(railExtraImpls, ","))
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--impls %q: no impl", s)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func runBenchRail(c *cli, args []string) error {
	o := new(benchRailOpts)
	fs := o.flagSet()
	only, isRank, err := parseRailArgs(c, fs, args, &o.rails)
	if err != nil {
		return err
	}
	impls, err := parseImpls(o.impls)
	if err != nil {
		return usagef("%v", err)
	}
	if o.runs < 1 || o.runs > 100 {
		return usagef("--runs %d: want 1 to 100", o.runs)
	}
	if _, err := parseCases(o.cases); err != nil {
		return usagef("%v", err)
	}
	if o.timeout < 0 {
		return usagef("--timeout %v: want 0 (the default) or more", o.timeout)
	}
	if o.iters < 0 || o.iters > 1000000 {
		return usagef("--iters %d: want 0 (the default) to 1000000", o.iters)
	}
	if err := outputDir("--svg", o.svg); err != nil && !isRank {
		return usagef("%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if isRank {
		return benchRailRank(ctx, c, o, impls, only)
	}
	return benchRailOuter(ctx, c, o, fs, impls)
}

// benchRailOuter compiles the Open MPI peer, runs the job, collects rank
// 0's rows and reports them.
func benchRailOuter(ctx context.Context, c *cli, o *benchRailOpts, fs *flag.FlagSet, impls []string) error {
	hosts, err := railHosts(o.host, o.hostfile)
	if err != nil {
		return err
	}
	flags := rankFlags(fs)
	var notes []string
	if contains(impls, "openmpi") {
		prog, cleanup, err := buildRailPeer(ctx)
		if err != nil {
			notes = append(notes, err.Error())
		} else {
			defer cleanup()
			flags = append(flags, "--mpi-prog="+prog, "--mpi-hosts="+strings.Join(hosts, ","), "--mpi-rsh="+o.rsh)
		}
	}
	col := newRowCollector(c.stderr)
	job := &cli{stdout: col, stderr: c.stderr, cmd: c.cmd}
	limit := o.timeout
	if limit == 0 {
		limit = time.Duration(o.runs) * railJobLimit
	}
	err = launchRailJob(job, "bench rail", o.host, o.hostfile, o.rsh, limit, flags)
	col.Flush()
	if err != nil {
		return err
	}
	rows := col.rows
	for _, n := range notes {
		rows = append(rows, railRow{Bench: "bandwidth", Impl: "openmpi", Note: "openmpi not run: " + n})
	}
	if len(rows) == 0 {
		return fmt.Errorf("the job reported no rows")
	}
	if o.svg != "" {
		if err := writeRailSVG(o.svg, rows); err != nil {
			return err
		}
	}
	if o.json {
		return writeRailJSON(c.stdout, rows)
	}
	if err := writeRailTables(c.stdout, rows); err != nil {
		return err
	}
	if o.quick {
		// 100 round trips and 16 MiB a case fit inside the shapers' bursts
		// and the flow's start: the ratios above check that it runs, not
		// the targets.
		fmt.Fprintln(c.stdout, "  (--quick: cases too short to judge the targets by; run without it)")
	}
	return nil
}

// buildRailPeer compiles bench/peers/railbw.c into a temporary directory.
func buildRailPeer(ctx context.Context) (string, func(), error) {
	if err := bench.PeersMissing(); err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "plexus-bench-rail-")
	if err != nil {
		return "", nil, err
	}
	prog, err := bench.BuildPeer(ctx, dir, "railbw")
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return prog, func() { os.RemoveAll(dir) }, nil
}

// railHosts returns the two hosts of --host or of the hostfile, for
// mpirun.
func railHosts(host, hostfile string) ([]string, error) {
	if (host == "") == (hostfile == "") {
		return nil, usagef("name the two hosts with --host or --hostfile")
	}
	var hosts []string
	if host != "" {
		hosts = strings.Split(host, ",")
	} else {
		b, err := os.ReadFile(hostfile)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
				hosts = append(hosts, f[0])
			}
		}
	}
	if len(hosts) < 2 {
		return nil, usagef("want two hosts, have %d", len(hosts))
	}
	return hosts[:2], nil
}
