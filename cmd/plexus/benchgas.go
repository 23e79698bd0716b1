package main

import (
	"context"
	"flag"
	"os"
	"os/signal"

	"github.com/plexus-hpc/plexus/bench"
	"github.com/plexus-hpc/plexus/bench/gasrank"
)

var benchGasCmd = &command{
	name:    "bench gas",
	summary: "measure active messages and global-address-space delegates, side by side with Open MPI",
	usage: `bench gas [--transport tcp|shm] [--quick] [--runs N] [--gups-ranks LIST] [--json]

Starts jobs of ranks on this host, as plexus run does, each rank this
binary running the Plexus program (packages am and pgas over comm) as the
hidden verb "plexus bench gas rank"; when mpicc and mpirun are here it also
compiles bench/peers/am.c and gups.c, whose sources this binary carries,
into a temporary directory and runs them under mpirun on shared memory
(the vader BTL). Nothing else is needed: no Go toolchain, no source tree.
Cases:
  am                32-byte Posts per second from rank 0 to rank 1, 2 ranks:
                    impl aggregated (am's default Config), direct (FlushBytes
                    1: one comm message per Post), and openmpi (windows of
                    64 MPI_Isend + MPI_Waitall), msgs/s
  delegate_latency  blocking pgas FetchAndAdd on an element of the other
                    rank, µs per round trip
  gups              posted pgas Adds of 1 to random elements of a global
                    array of 2^24 int64 (2^20 with --quick), at 1 and 2
                    ranks (--gups-ranks), updates per second of the job; impl openmpi
                    (bench/peers/gups.c): MPI_Accumulate in a passive
                    epoch, flushed every 1024 updates
Every case runs --runs times and the median is reported. Without Open MPI
the openmpi rows are left out, and the table and every JSON row carry a
note saying why. The table ends with the ratios against the targets:
aggregated ≥ 12× direct over tcp, ≥ 3× over shm, and ≥ 1× Open MPI's;
GUPS at 2 ranks ≥ 1× Open MPI's. --json prints one JSON array (bench,
impl, transport, ranks, size, value, unit, iters, runs, note).`,
	flags: func() *flag.FlagSet { return new(gasOpts).flagSet() },
	run:   runBenchGas,
}

type gasOpts struct {
	cfg       bench.GasConfig
	gupsRanks string
	json      bool
}

func (o *gasOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("bench gas", flag.ContinueOnError)
	fs.StringVar(&o.cfg.Transport, "transport", "tcp", "transport between Plexus's ranks, `tcp|shm`: TCP loopback or shared memory")
	fs.BoolVar(&o.cfg.Quick, "quick", false, "few operations, one run, gups on 2^20 elements: a smoke test")
	fs.IntVar(&o.cfg.Runs, "runs", 0, "`N` runs per case, reported as the median (default 3, 1 with --quick)")
	fs.StringVar(&o.gupsRanks, "gups-ranks", "1,2", "job sizes of the gups case as a comma-separated `LIST`")
	fs.BoolVar(&o.json, "json", false, "print a JSON array instead of a table")
	return fs
}

func runBenchGas(c *cli, args []string) error {
	if rest, ok := rankArgs(args); ok {
		return runRank(c, gasrank.Run, rest)
	}
	o := new(gasOpts)
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	var err error
	if o.cfg.GUPSRanks, err = intList(o.gupsRanks); err != nil {
		return usagef("--gups-ranks: %v", err)
	}
	if err := o.cfg.Validate(); err != nil {
		return usagef("%v", err)
	}
	if o.cfg.Rank, err = selfRank("gas"); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	o.cfg.Log = c.stderr
	res, err := bench.Gas(ctx, o.cfg)
	if err != nil {
		return err
	}
	if o.json {
		return bench.WriteGasJSON(c.stdout, res)
	}
	return bench.WriteGasTable(c.stdout, res)
}
