package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/plexus-hpc/plexus/bench"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/measure"
	"github.com/plexus-hpc/plexus/topo/sysfs"
)

var benchCollCmd = &command{
	name:    "bench coll",
	summary: "measure ring ping-pong, streaming and collectives against Go's own primitives",
	usage: `bench coll [--model DIR|FILE] [--quick] [--members LIST] [--json]

Runs, on goroutines pinned to this machine's CPUs, side by side:
  pingpong  round trip between two CPUs: impl atomic (the floor), ring, chan
  stream    one-way 8-byte messages: impl ring, chan (ns per message)
  barrier   impl team-<topology> (Smelt's barrier on each tree), dissemination,
            atomic (sense-reversing), cond (sync.Cond), chan, waitgroup
  bcast     impl team-<topology>, chan: 8-byte broadcast + acknowledgement
  reduce    impl team-<topology>, chan: 8-byte sum + release
  allreduce impl team-<algorithm> (trees, doubling, rabenseifner) and
            team-auto (the model's choice): 8-byte sum on the adaptive tree
  hop       impl team-chain, teams of 3 or more: a barrier on a chain of the
            team's CPUs, timed first; what it takes beyond its prediction,
            per hop, is added to the model's latency between those CPUs, and
            that size's team cases build and predict on the result
Go's own primitives (cond, chan, waitgroup) also run on goroutines as Go
programs start them, unpinned (impl chan-unpinned and so on): there the
scheduler hands a value or a wake-up to a goroutine waiting on the same
thread, where pinned, one thread per member, every hand-off wakes another
thread and costs tens of microseconds.
For team results it also prints the simulator's prediction for the same
tree on the machine model and measured/predicted: the model is useful if it
predicts the ranking. Topologies that build the same tree for a team size
run the same team, which is measured once: the later rows carry its
measurement and name the measured impl (same tree as; JSON same_tree_as).
The model is measured first (a quick pairwise run)
unless --model gives one. --json prints one JSON array of results with the
fields bench, impl, members, ns_per_op (and more).`,
	flags: func() *flag.FlagSet { return new(benchOpts).flagSet() },
	run:   runBenchColl,
}

type benchOpts struct {
	model   string
	quick   bool
	members string
	json    bool
}

func (o *benchOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("bench coll", flag.ContinueOnError)
	fs.StringVar(&o.model, "model", "", "model `DIR|FILE` for trees and predictions, as for plexus machine (default: measure this machine, quick)")
	fs.BoolVar(&o.quick, "quick", false, "shorter runs (3 runs of about 10 ms per case instead of 15 of 30 ms)")
	fs.StringVar(&o.members, "members", "", "team sizes as a `LIST` such as 2-4 (default all allowed CPUs)")
	fs.BoolVar(&o.json, "json", false, "print a JSON array instead of a table")
	return fs
}

func runBenchColl(c *cli, args []string) error {
	o := new(benchOpts)
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	m, err := benchModel(ctx, c.stderr, o.model)
	if err != nil {
		return err
	}
	cfg := bench.Config{Model: m, Quick: o.quick}
	if o.members != "" {
		if cfg.Members, err = sysfs.ParseCPUList(o.members); err != nil || len(cfg.Members) == 0 {
			return usagef("--members: %q is not a list of team sizes such as 2-4", o.members)
		}
	}
	if err := cfg.Validate(); err != nil {
		return usagef("%v", err)
	}
	p := newProgress(c.stderr, "bench coll")
	res, err := bench.Coll(ctx, cfg, p.update)
	p.finish()
	if err != nil {
		return err
	}
	if o.json {
		return bench.WriteJSON(c.stdout, res)
	}
	fmt.Fprintf(c.stdout, "%s: CPUs %v, model %s (%s)\n\n", m.Name, cfg.CPUs, m.Name, costNote(m))
	return bench.WriteTable(c.stdout, res)
}

// benchModel loads path, or measures this machine quickly when path is
// empty, so predictions use measured costs.
func benchModel(ctx context.Context, stderr io.Writer, path string) (*topo.Model, error) {
	if path != "" {
		f := modelFlags{model: path}
		return f.load()
	}
	m, err := sysfs.Local()
	if err != nil {
		return nil, err
	}
	p := newProgress(stderr, "measure "+m.Name)
	r, err := measure.Pairwise(ctx, measure.Config{Quick: true}, p.update)
	p.finish()
	if err != nil {
		return nil, err
	}
	return measure.Merge(m, r)
}
