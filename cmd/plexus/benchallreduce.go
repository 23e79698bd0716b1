package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/plexus-hpc/plexus/bench"
)

var benchAllreduceCmd = &command{
	name:    "bench allreduce",
	summary: "time allreduce across ranks per algorithm against Open MPI's",
	usage: `bench allreduce [--transport tcp|shm|auto] [--ranks LIST] [--runs N] [--quick]
                       [--host HOSTS | --hostfile FILE] [--rsh CMD] [--mpi-if NET] [--rails NETWORKS]

Runs plexus bench p2p's coll case --runs times, one run each, with the
rank program ("plexus bench p2p rank -algorithms") timing the 8-byte
allreduce several ways in every run: allreduce (the algorithm rank 0
chose on the model of the ranks), allreduce-trees and allreduce-doubling
(forced; comm/collective's Config.Allreduce), and where the ranks span
hosts, allreduce-hier (Config.Hierarchy: two levels) and, where every
host holds as many ranks, at least two, allreduce-across (every rank
folds its host's posts and exchanges the partial across hosts, forced
on crowded machines with Config.AcrossCrowded). Run i (from 0) times
them in that order rotated left by i ("-rotate i"), so that over
--runs 5 or more each takes every place once. With --host or
--hostfile the ranks run on those hosts as plexus bench p2p runs them
(--rsh, --mpi-if, --rails as there; the transport defaults to auto: shared
memory within a host, TCP between hosts). Open MPI's allreduce runs
in every run too, right after, so that each run's ratios compare them in
one state of the machine. Prints, per rank count and algorithm, the
median µs of Plexus and of Open MPI over the runs and the median and
range of each run's own ratio (below 1: Plexus faster). Without mpicc or
mpirun it says so and prints Plexus's times alone.`,
	flags: func() *flag.FlagSet { return new(allreduceOpts).flagSet() },
	run:   runBenchAllreduce,
}

func init() { addCommand(benchAllreduceCmd) }

type allreduceOpts struct {
	transport string
	ranks     string
	runs      int
	quick     bool
	hosts     p2pHosts
	mpiIf     string
}

func (o *allreduceOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("bench allreduce", flag.ContinueOnError)
	fs.StringVar(&o.transport, "transport", "", "transport between ranks, `tcp|shm|auto` (default shm, auto with hosts)")
	fs.StringVar(&o.ranks, "ranks", "2,4", "job sizes as a comma-separated `LIST`")
	fs.IntVar(&o.runs, "runs", 10, "`N` runs, each timing every algorithm and Open MPI")
	fs.BoolVar(&o.quick, "quick", false, "few iterations per run: a smoke test")
	o.hosts.addFlags(fs, &o.mpiIf)
	return fs
}

func runBenchAllreduce(c *cli, args []string) error {
	o := new(allreduceOpts)
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	if cfg.Rank, err = selfRank("p2p"); err != nil {
		return err
	}
	rank := append(cfg.Rank, "-algorithms")
	cfg.Log = c.stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var runs [][]bench.P2PResult
	for i := range o.runs {
		fmt.Fprintf(c.stderr, "bench allreduce: run %d/%d\n", i+1, o.runs)
		cfg.Rank = append(rank[:len(rank):len(rank)], "-rotate", strconv.Itoa(i))
		res, err := bench.P2P(ctx, cfg)
		if err != nil {
			return err
		}
		runs = append(runs, res)
	}
	return writeAllreduceTable(c.stdout, allreduceRows(runs))
}

// config checks the flags and returns the coll case's configuration.
func (o *allreduceOpts) config() (bench.P2PConfig, error) {
	if o.runs < 1 {
		return bench.P2PConfig{}, usagef("--runs %d: want at least 1", o.runs)
	}
	ranks, err := intList(o.ranks)
	if err != nil || len(ranks) == 0 {
		return bench.P2PConfig{}, usagef("--ranks: %q is not a list such as 2,4", o.ranks)
	}
	cfg := bench.P2PConfig{Transport: strings.TrimSpace(o.transport), Peers: true, Ranks: ranks,
		Cases: []string{"coll"}, Runs: 1, Quick: o.quick, MPIInterface: o.mpiIf}
	if err := o.hosts.apply(&cfg); err != nil {
		return bench.P2PConfig{}, err
	}
	if cfg.Transport == "" {
		cfg.Transport = "shm"
		if len(cfg.Hosts) > 0 {
			cfg.Transport = "auto"
		}
	}
	if err := cfg.Validate(); err != nil {
		return bench.P2PConfig{}, usagef("%v", err)
	}
	return cfg, nil
}
