package main

import (
	"context"
	"flag"
	"os"
	"os/signal"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/uts"
)

var utsCmd = &command{
	name:    "uts",
	summary: "UTS-Mem: build an Unbalanced Tree Search tree in memory across ranks, then traverse it",
	usage: `uts [--tree T1|T3] [-t TYPE] [-a SHAPE] [-d DEPTH] [-b B0] [-q Q] [-m M] [-r SEED] [-f FRACTION] [--json] [--svg FILE]

The Unbalanced Tree Search benchmark's trees, generated as UTS does (SHA-1
splittable random stream per node), first built in memory across the
job's ranks by tasks that idle ranks steal, each node's children as
global pointers, then traversed by tasks that count nodes, leaves and
depth (the timed part, as Grappa's UTS-Mem). The flags are UTS's:
-t 0 binomial, 1 geometric, 2 hybrid, 3 balanced; -a 0 linear, 1 expdec,
2 cyclic, 3 fixed. --tree T1 is -t 1 -a 3 -d 10 -b 4 -r 19, T3 is
-t 0 -b 2000 -q 0.124875 -m 8 -r 42; flags after it change it. Run it
as the ranks of a job:
  plexus run -n 2 -- plexus uts --tree T1
The counts are the same for every rank count and run; rank 0 prints
them with the build and traversal times and each rank's stored and
visited nodes.`,
	flags: func() *flag.FlagSet { return new(utsOpts).flagSet() },
	run:   runUTS,
}

func init() { addCommand(utsCmd) }

type utsOpts struct {
	tree       string
	p          uts.Params
	cfg        uts.MemConfig
	runs       int
	json       bool
	svg        string
	cpuprofile string
	typ        int
	shape      int
}

func (o *utsOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("uts", flag.ContinueOnError)
	d := uts.Default()
	fs.StringVar(&o.tree, "tree", "", "start from UTS's sample tree `T1|T3`")
	fs.IntVar(&o.typ, "t", int(d.Type), "tree `TYPE`: 0 binomial, 1 geometric, 2 hybrid, 3 balanced")
	fs.IntVar(&o.shape, "a", int(d.Shape), "geometric `SHAPE`: 0 linear, 1 expdec, 2 cyclic, 3 fixed")
	fs.IntVar(&o.p.Depth, "d", d.Depth, "geometric tree `DEPTH` (gen_mx)")
	fs.Float64Var(&o.p.B0, "b", d.B0, "root branching factor `B0`")
	fs.Float64Var(&o.p.Q, "q", d.Q, "binomial probability `Q` of children")
	fs.IntVar(&o.p.M, "m", d.M, "binomial `M` children")
	fs.IntVar(&o.p.Seed, "r", d.Seed, "root `SEED`")
	fs.Float64Var(&o.p.ShiftDepth, "f", d.ShiftDepth, "hybrid switch depth, a `FRACTION` of -d")
	fs.IntVar(&o.cfg.Budget, "budget", 0, "`N` nodes per task before it spills its stack as tasks (default 1024)")
	fs.IntVar(&o.cfg.Task.Workers, "workers", 0, "task workers per rank `N` (default GOMAXPROCS)")
	fs.DurationVar(&o.cfg.AM.FlushAge, "flush-age", 0, "oldest a buffered active message may get, `AGE` (default am.DefaultFlushAge)")
	fs.IntVar(&o.runs, "runs", 1, "`N` traversals of the built tree; the times are the median")
	fs.BoolVar(&o.json, "json", false, "print one JSON object")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write each rank's CPU profile of the traversals to `PREFIX`.RANK")
	fs.StringVar(&o.svg, "svg", "", "also plot the nodes each rank stored and visited to `FILE`")
	return fs
}

// params applies --tree, then the UTS flags given on the command line.
func (o *utsOpts) params(fs *flag.FlagSet) error {
	p := o.p
	p.Type, p.Shape = uts.Type(o.typ), uts.Shape(o.shape)
	switch o.tree {
	case "":
	case "T1", "T3":
		base := uts.T1()
		if o.tree == "T3" {
			base = uts.T3()
		}
		fs.Visit(func(f *flag.Flag) { setUTSFlag(&base, f.Name, p) })
		p = base
	default:
		return usagef("--tree %q: want T1 or T3", o.tree)
	}
	if err := p.Validate(); err != nil {
		return usagef("%v", err)
	}
	if o.cfg.AM.FlushAge < 0 {
		return usagef("--flush-age %v: want a positive age", o.cfg.AM.FlushAge)
	}
	if err := firstErr(atLeast("--runs", int64(o.runs), 1), atLeast("--budget", int64(o.cfg.Budget), 0),
		atLeast("--workers", int64(o.cfg.Task.Workers), 0)); err != nil {
		return err
	}
	o.p = p
	return nil
}

func setUTSFlag(base *uts.Params, name string, p uts.Params) {
	switch name {
	case "t":
		base.Type = p.Type
	case "a":
		base.Shape = p.Shape
	case "d":
		base.Depth = p.Depth
	case "b":
		base.B0 = p.B0
	case "q":
		base.Q = p.Q
	case "m":
		base.M = p.M
	case "r":
		base.Seed = p.Seed
	case "f":
		base.ShiftDepth = p.ShiftDepth
	}
}

func runUTS(c *cli, args []string) error {
	o := new(utsOpts)
	fs := o.flagSet()
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if err := outputDir("--svg", o.svg); err != nil {
		return usagef("%v", err)
	}
	if err := o.params(fs); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return onJob(ctx, func(ctx context.Context, w *comm.World, cc *collective.Comm) error {
		return utsRank(ctx, c, o, w, cc)
	})
}
