package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/plexus-hpc/plexus/bench"
	"github.com/plexus-hpc/plexus/bench/p2prank"
)

var benchP2PCmd = &command{
	name:    "bench p2p",
	summary: "measure point-to-point and collectives between ranks, side by side with Open MPI",
	usage: `bench p2p [--transport tcp|shm|auto] [--hierarchy] [--peers] [--ranks LIST]
                 [--sizes LIST] [--goroutines LIST] [--cases LIST] [--quick] [--runs N]
                 [--multiple] [--no-pgo] [--json]
                 [--host HOSTS | --hostfile FILE] [--rsh CMD] [--mpi-if NET] [--rails NETWORKS]

Starts jobs of ranks on this host, as plexus run does, each rank this
binary running the Plexus peer program (over comm) as the hidden verb
"plexus bench p2p rank"; with --peers it also compiles the Open MPI
programs of bench/peers, whose sources this binary carries, with mpicc
into a temporary directory and runs them under mpirun (ob1 with the TCP
BTL on loopback, or with --transport shm the vader shared-memory BTL),
alternating with Plexus. Nothing else is needed: no Go toolchain and no
source tree, so a copy of the binary runs it on any Linux host. Both bind their ranks the
same way (a core each for two ranks here), and each program warms its
first case up for at least 100 ms, then every case for a tenth of its
iterations. Cases:
  latency    ping-pong between ranks 0 and 1, one-way µs, per size
  bandwidth  windows of 64 non-blocking sends, MB/s (10^6 bytes), per size
  msgrate    1000 windows of 64 8-byte sends, messages/s
  barrier, bcast (8 B), allreduce (8 B sum)   µs per op, mean over ranks
With --goroutines G1,G2,... (1 to 1000000 each; e.g. 1,10,100,1000,10000,100000),
also, Plexus only, for each count G (as OSU's osu_latency_mt):
  latency_mt  G goroutines of rank 0 ping-pong at once, each with its own
              partner goroutine of rank 1 on its own tag, 8 B; one-way µs =
              T / (2 n), T the wall time of the timed phase, n the round
              trips of one pair (the base of 1000 shared out, at least 2)
  msgrate_mt  G senders stream windows of 8 B sends to their partners, each
              window acknowledged; messages/s of the rank (window 64, cut so
              that G × window ≤ 65536; 2000 windows shared out, at least 2)
--cases restricts the run to some of latency, bw, msgrate, coll, latency_mt,
msgrate_mt (e.g. --cases latency_mt,msgrate_mt for the goroutine sweep alone).
Point-to-point cases run with the fewest ranks, collectives with each count.
Plexus runs the cases of one goroutine per rank on serialized worlds
(comm.Config.Serialized: used by one goroutine at a time, like the MPI_Init
of Open MPI's programs; over shared memory they take no locks), unless
--multiple asks for default worlds, which any goroutines may use at once;
the _mt cases always run on default worlds. go build builds plexus with
profile-guided optimisation from cmd/plexus/default.pgo (made by
bench/p2pprog/pgo.sh), as Open MPI's library is built optimised; --no-pgo
builds the Plexus program from source without it instead, which needs the
Go toolchain and the plexus module as the working directory.
With --host or --hostfile (read as plexus run reads them) the ranks run on
those hosts, started as plexus run starts them, through --rsh CMD (default
ssh -o BatchMode=yes; testdata/cluster/agent for namespace hosts): each
job's ranks go over the distinct hosts in equal contiguous blocks, slots
aside, so the point-to-point cases run between the first two hosts and
4 ranks on two hosts run 2 on each. Open MPI's mpirun runs on the first
host through CMD, which it also uses to start its daemons (plm_rsh_agent),
with ob1 and the TCP BTL (also between ranks of one host, as Plexus's
transport tcp), --mpi-if NET as btl_tcp_if_include and oob_tcp_if_include,
and --bind-to none, as Plexus does not bind ranks on other hosts. With
--transport auto both take their default paths instead: shared memory
between ranks of one host, TCP between hosts (Plexus's own same-host
detection; Open MPI's vader, tcp and self BTLs). --hierarchy runs Plexus's
collectives in two levels (comm/collective's Config.Hierarchy: each host's
ranks on its shared memory, one leader per host over TCP), which takes
--transport auto. This binary and $TMPDIR, where the Open MPI programs are compiled, must be at
the same paths on every host (a shared file system). Between hosts the
targets are TCP's and the 4-rank barrier and allreduce ≤ 1× Open MPI's.
Every case runs --runs times, Plexus and Open MPI in turn, and the median is
reported. Without mpicc or mpirun, --peers says so, Plexus runs alone, and
the table and every JSON row carry a note saying why.
--json prints one JSON array (bench, impl, transport, ranks, size, value,
unit, iters, runs, goroutines, serialized, pgo, paired_ratio, note);
the table shows plexus/openmpi per case, the ratio of the medians, and
"paired", the median of each run's own ratio (a run measures both one after
the other, so on a machine whose speed changes from second to second its
ratio compares like with like), with a goroutines column when there are
_mt cases; then the transport's targets, judged on the paired ratio: over tcp latency ≤ 1.2×,
message rate ≥ 10×, bandwidth at 1 MiB ≥ 0.9× Open MPI's; over shm latency
≤ 1.2×, bandwidth at 1 MiB ≥ 0.8×, 2-rank barrier ≤ 1.2×, message rate ≥ 1×.`,
	flags: func() *flag.FlagSet { return new(p2pOpts).flagSet() },
	run:   runBenchP2P,
}

type p2pOpts struct {
	cfg                             bench.P2PConfig
	ranks, sizes, goroutines, cases string
	json                            bool
	hosts                           p2pHosts
}

func (o *p2pOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("bench p2p", flag.ContinueOnError)
	fs.StringVar(&o.cfg.Transport, "transport", "tcp", "transport between ranks, `tcp|shm|auto`: TCP, shared memory, or shared memory within a host and TCP between hosts")
	fs.BoolVar(&o.cfg.Hierarchy, "hierarchy", false, "run Plexus's collectives in two levels across hosts (collective.Config.Hierarchy)")
	fs.BoolVar(&o.cfg.Peers, "peers", false, "also run the Open MPI programs of bench/peers")
	fs.StringVar(&o.ranks, "ranks", "2,4", "job sizes as a comma-separated `LIST` such as 2,4")
	fs.StringVar(&o.sizes, "sizes", "", "message sizes in bytes as a comma-separated `LIST` (default 1 to 4194304, powers of two)")
	fs.StringVar(&o.goroutines, "goroutines", "", "goroutine counts of the multi-goroutine cases as a comma-separated `LIST` (default none)")
	fs.StringVar(&o.cases, "cases", "", "run only these programs, a comma-separated `LIST` of latency, bw, msgrate, coll, latency_mt, msgrate_mt")
	fs.BoolVar(&o.cfg.Quick, "quick", false, "few iterations, one run: a smoke test")
	fs.BoolVar(&o.cfg.Multiple, "multiple", false, "run the single-goroutine cases on default worlds, not serialized ones")
	fs.BoolVar(&o.cfg.NoPGO, "no-pgo", false, "build the Plexus program from source without the profile (cmd/plexus/default.pgo); needs the Go toolchain")
	fs.IntVar(&o.cfg.Runs, "runs", 0, "`N` runs per case, reported as the median (default 3, 1 with --quick)")
	fs.BoolVar(&o.json, "json", false, "print a JSON array instead of a table")
	o.hosts.addFlags(fs, &o.cfg.MPIInterface)
	return fs
}

func runBenchP2P(c *cli, args []string) error {
	if rest, ok := rankArgs(args); ok {
		return runRank(c, p2prank.Run, rest)
	}
	o := new(p2pOpts)
	if err := o.parse(c, args); err != nil {
		return err
	}
	if !o.cfg.NoPGO {
		var err error
		if o.cfg.Rank, err = selfRank("p2p"); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	o.cfg.Log = c.stderr
	res, err := bench.P2P(ctx, o.cfg)
	if errors.Is(err, bench.ErrNoRank) {
		return fmt.Errorf("--no-pgo: %w", err)
	}
	if err != nil {
		return err
	}
	if o.json {
		return bench.WriteP2PJSON(c.stdout, res)
	}
	return bench.WriteP2PTable(c.stdout, res)
}

func (o *p2pOpts) parse(c *cli, args []string) error {
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	var err error
	if o.cfg.Ranks, err = intList(o.ranks); err != nil {
		return usagef("--ranks: %v", err)
	}
	if o.cfg.Sizes, err = intList(o.sizes); err != nil {
		return usagef("--sizes: %v", err)
	}
	if o.cfg.Goroutines, err = intList(o.goroutines); err != nil {
		return usagef("--goroutines: %v", err)
	}
	if err := o.hosts.apply(&o.cfg); err != nil {
		return err
	}
	for f := range strings.SplitSeq(o.cases, ",") {
		if f = strings.TrimSpace(f); f != "" {
			o.cfg.Cases = append(o.cfg.Cases, f)
		}
	}
	if err := o.cfg.Validate(); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// intList parses "2,4"; the empty string is an empty list.
func intList(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var v []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		v = append(v, n)
	}
	return v, nil
}
