package main

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/plexus-hpc/plexus/agree/group"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/kv"
)

var kvServeCmd = &command{
	name:    "kv serve",
	summary: "run a replicated key-value store (1Paxos) as a job, with an optional load",
	usage: `kv serve --replicas R [--broadcast tree|sequential] [--model placement|measure] [--clients C] [--duration D | --ops N] [--gets P] [--keys K] [--key-size B] [--value-size B] [--tick D] [--check] [-v] [--crash RANK@D[,...]] [--restart RANK@D[,...]] [--compact N]

Runs as every rank of a job started by plexus run, mpirun or srun (plexus
run -n 4 plexus kv serve --replicas 3). Ranks 0..R-1 are the replicas of
the store: Sets are ordered by 1Paxos, whose acceptor reaches the
replicas by one broadcast down a machine-aware tree of the ranks (or one
by one with --broadcast sequential); Gets are served by the replica a
client talks to. The other ranks are load generators: each runs C
clients issuing requests back to back (P% Gets, the rest Sets) on K keys
for D (or N requests each), prints one JSON line with what it measured
(ops, failed, ops_per_s, p50_us, p99_us) and tells the replicas it is
done; the replicas end when every load rank is done. With no load rank
the replicas serve until the job is ended.

--check records every request and checks the history (Sets linearizable,
Gets sequentially consistent) at the end; a violation fails the rank.
--crash RANK@D[,RANK@D...] makes replica RANK vanish after D, as a
crashed process does (it exits at once, closing nothing; with status 0,
so that plexus run lets the job go on), to test failover.
--restart RANK@D[,RANK@D...] makes replica RANK lose its state after D
and recover it from the others, inside its process (the rank stays in
the job: a process that restarts cannot join a running job).
--compact N makes each replica snapshot its store every N slots and
forget the log before the snapshot (0: never; the log then grows with
every Set). A load rank
whose requests failed (no majority of replicas left) exits with an
error after its line and its check.`,
	flags: func() *flag.FlagSet { return new(kvServeOpts).flagSet() },
	run:   runKVServe,
}

func init() { addCommand(kvServeCmd) }

type kvServeOpts struct {
	replicas  int
	broadcast string
	model     string
	tick      time.Duration
	load      kv.LoadConfig
	check     bool
	verbose   bool
	crash     string
	restart   string
	compact   int
}

func (o *kvServeOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("kv serve", flag.ContinueOnError)
	fs.IntVar(&o.replicas, "replicas", 3, "number of replica ranks `R` (ranks 0..R-1)")
	fs.StringVar(&o.broadcast, "broadcast", "tree", "how the acceptor reaches the replicas: `tree|sequential`")
	fs.StringVar(&o.model, "model", "placement", "cost model of the ranks for the tree: `placement|measure`")
	fs.DurationVar(&o.tick, "tick", 5*time.Millisecond, "period `D` of the protocol's clock")
	fs.IntVar(&o.load.Clients, "clients", 1, "clients `C` per load rank")
	fs.DurationVar(&o.load.Duration, "duration", 0, "run the load for `D`")
	fs.IntVar(&o.load.Ops, "ops", 1000, "requests `N` per client when --duration is 0")
	fs.IntVar(&o.load.GetPercent, "gets", 80, "percentage `P` of Gets in the load")
	fs.IntVar(&o.load.Keys, "keys", 1000, "number of keys `K`")
	fs.IntVar(&o.load.KeySize, "key-size", 8, "key size in bytes `B` (at least 8)")
	fs.IntVar(&o.load.ValueSize, "value-size", 16, "value size in bytes `B` (at least 16)")
	fs.BoolVar(&o.check, "check", false, "record the history and check it")
	fs.BoolVar(&o.verbose, "v", false, "replicas say their final epoch, leader, acceptor and slots applied on stderr")
	fs.StringVar(&o.crash, "crash", "", "replicas that vanish, `RANK@D[,...]`: replica RANK after D")
	fs.StringVar(&o.restart, "restart", "", "replicas that lose their state and recover it, `RANK@D[,...]`: replica RANK after D")
	fs.IntVar(&o.compact, "compact", kv.DefaultCompactEvery, "snapshot the store every `N` slots and drop the log before it (0: never)")
	return fs
}

// kvLoadLine is the JSON line a load rank prints.
type kvLoadLine struct {
	Rank     int     `json:"rank"`
	Ops      int     `json:"ops"`
	Failed   int     `json:"failed"`
	OpsPerS  float64 `json:"ops_per_s"`
	P50us    float64 `json:"p50_us"`
	P99us    float64 `json:"p99_us"`
	Checked  bool    `json:"checked"`
	FirstErr string  `json:"first_err,omitempty"`
}

func runKVServe(c *cli, args []string) error {
	o := new(kvServeOpts)
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	mode, err := group.ParseMode(o.broadcast)
	if err != nil {
		return usagef("%v", err)
	}
	crashes, err := parseRankTimes("crash", o.crash)
	if err != nil {
		return usagef("%v", err)
	}
	restarts, err := parseRankTimes("restart", o.restart)
	if err != nil {
		return usagef("%v", err)
	}
	if o.compact < 0 {
		return usagef("--compact %d, want 0 (never) or a positive number of slots", o.compact)
	}
	if o.tick < 0 {
		return usagef("--tick %v, want a positive period", o.tick)
	}
	if err := o.load.Validate(); err != nil {
		return usagef("%v", err)
	}
	if err := replicaRanks(o.replicas, crashes, restarts); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	w, err := comm.JoinWith(ctx, comm.Config{MatchShards: kv.MatchShards}) // replicas receive with AnySource
	if err != nil {
		return err
	}
	defer w.Close()
	if o.replicas > w.Size() {
		return usagef("--replicas %d in a job of %d ranks: start it with at least %d ranks (e.g. plexus run -n %d plexus kv serve ...; one more rank runs the load)",
			o.replicas, w.Size(), o.replicas, o.replicas+1)
	}
	cfg := kv.RanksConfig{Replicas: o.replicas, Mode: mode, Tick: o.tick, CompactEvery: o.compact}
	if o.compact == 0 {
		cfg.CompactEvery = -1
	}
	if o.verbose {
		cfg.Log = slog.New(slog.NewTextHandler(c.stderr, nil))
	}
	if cfg.Model, err = kvModel(ctx, w, o.model); err != nil {
		return err
	}
	if w.Rank() < o.replicas {
		if d, ok := crashes[w.Rank()]; ok {
			crashAfter(c, w.Rank(), d)
		}
		if d, ok := restarts[w.Rank()]; ok {
			cfg.Restart = restartAfter(c, w.Rank(), d)
		}
		err := kv.ServeRanks(ctx, w, cfg)
		if ctx.Err() != nil {
			return nil // ended by a signal: the expected way out without load ranks
		}
		return err
	}
	return kvLoad(ctx, c, w, o)
}

// replicaRanks checks --replicas and that every rank --crash and
// --restart name is a replica.
func replicaRanks(replicas int, sets ...map[int]time.Duration) error {
	if replicas < 1 {
		return usagef("--replicas %d, want at least 1", replicas)
	}
	for i, set := range sets {
		for r := range set {
			if r >= replicas {
				return usagef("--%s names rank %d, but the replicas are ranks 0..%d", [...]string{"crash", "restart"}[i], r, replicas-1)
			}
		}
	}
	return nil
}
