package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/signal"
	"runtime"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/graph"
	"github.com/plexus-hpc/plexus/launch"
)

var graphBFSCmd = &command{
	name:    "graph bfs",
	summary: "Graph500 breadth-first search on a Kronecker graph across the job's ranks",
	usage: `graph bfs [--scale SCALE] [--edgefactor N] [--nbfs N] [--seed N] [--root V] [--mode hybrid|topdown] [--impl loops|tasks] [--json] [--svg FILE [--svg-with LIST]]

Graph500 kernel 2 on Plexus: every rank generates its share of a Kronecker
graph of 2^scale vertices and edgefactor × 2^scale edges (initiator 0.57,
0.19, 0.19, labels permuted and edges shuffled from --seed), sends each
edge to its endpoints' home ranks, then searches from up to --nbfs keys
sampled among the vertices with an edge. Updates of a vertex run at its
home rank as aggregated active messages (package am). --impl tasks runs
the same search in Grappa's style: each level is a task loop over every
rank's own vertices (package task), the parent array is a global array
(package pgas), and a visit is a compare-and-swap at the vertex's home,
carried by a task; --impl loops (the default, faster) uses plain
goroutines and per-rank arrays. Every search is validated by the
specification's five rules; a failure exits 1 naming the rule. Run it as the ranks of a job:
  plexus run -n 2 -- plexus graph bfs --scale 20
  mpirun -n 2 plexus graph bfs --scale 20
Alone it is one rank. Rank 0 prints the reference implementation's
statistics (time, nedge and TEPS; TEPS counts the input edges in the
root's component, a self-loop once) and progress on stderr.
--svg-with draws earlier runs' --json outputs (other rank counts of the
same graph) beside this one in the --svg plots, one line per run:
  plexus run -n 1 -- plexus graph bfs --scale 18 --json > 1.json
  plexus run -n 2 -- plexus graph bfs --scale 18 --svg bfs.svg --svg-with 1.json`,
	flags: func() *flag.FlagSet { return new(bfsOpts).flagSet() },
	run:   runGraphBFS,
}

func init() { addCommand(graphBFSCmd) }

type bfsOpts struct {
	cfg   graph.BenchConfig
	mode  string
	impl  string
	seed  int64
	quiet bool
	json  bool
	svg   string
	with  string      // --svg-with
	other []bfsReport // the runs read from --svg-with
}

func (o *bfsOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("graph bfs", flag.ContinueOnError)
	fs.IntVar(&o.cfg.Scale, "scale", 16, "`SCALE`: the graph has 2^SCALE vertices")
	fs.IntVar(&o.cfg.EdgeFactor, "edgefactor", graph.DefaultEdgeFactor, "`N` edges per vertex")
	fs.IntVar(&o.cfg.NBFS, "nbfs", 64, "`N` searches, each from its own key")
	fs.StringVar(&o.impl, "impl", "loops", "`loops|tasks`: levels as rank goroutines over plain arrays, or as task loops over a pgas parent array")
	fs.Int64Var(&o.seed, "seed", 1, "`N` seeds the graph and the keys")
	fs.Int64Var(&o.cfg.Root, "root", -1, "search only from vertex `V` (it must have an edge), nbfs times; -1: from random roots")
	fs.StringVar(&o.mode, "mode", "hybrid", "`hybrid|topdown`: direction-optimising or top-down levels only")
	fs.IntVar(&o.cfg.Dist.Threads, "threads", 0, "goroutines per rank for generation and bottom-up levels `N` (default CPUs / ranks on the host)")
	fs.IntVar(&o.cfg.Dist.Batch, "batch", graph.DefaultBatch, "`N` vertex updates per active message, 1 to 2048; 1 leaves all aggregation to am")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress on stderr")
	fs.BoolVar(&o.json, "json", false, "print one JSON object instead of the reference's lines")
	fs.StringVar(&o.svg, "svg", "", "also plot TEPS per search and time per level to `FILE`-teps.svg and FILE-levels.svg")
	fs.StringVar(&o.with, "svg-with", "", "draw these earlier --json outputs of the same graph beside this run in the --svg plots: a comma-separated `LIST` of files")
	return fs
}

func (o *bfsOpts) check() error {
	switch o.mode {
	case "hybrid":
		o.cfg.Mode = graph.Hybrid
	case "topdown":
		o.cfg.Mode = graph.TopDown
	default:
		return usagef("--mode %q: want hybrid or topdown", o.mode)
	}
	switch o.impl {
	case "loops":
		o.cfg.Dist.Impl = graph.Loops
	case "tasks":
		o.cfg.Dist.Impl = graph.Tasks
	default:
		return usagef("--impl %q: want loops or tasks", o.impl)
	}
	if err := firstErr(inRange("--scale", int64(o.cfg.Scale), 1, graph.MaxScale),
		atLeast("--edgefactor", int64(o.cfg.EdgeFactor), 1), atLeast("--nbfs", int64(o.cfg.NBFS), 1),
		atLeast("--threads", int64(o.cfg.Dist.Threads), 0), inRange("--batch", int64(o.cfg.Dist.Batch), 1, graph.MaxBatch),
		atLeast("--root", o.cfg.Root, -1)); err != nil {
		return err
	}
	o.cfg.Seed = uint64(o.seed)
	if o.with != "" {
		if o.svg == "" {
			return usagef("--svg-with needs --svg")
		}
		var err error
		if o.other, err = readBFSReports(o.with, o.cfg.Scale, o.cfg.EdgeFactor); err != nil {
			return usagef("--svg-with: %v", err)
		}
	}
	return nil
}

func runGraphBFS(c *cli, args []string) error {
	o := new(bfsOpts)
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	if err := outputDir("--svg", o.svg); err != nil {
		return usagef("%v", err)
	}
	if err := o.check(); err != nil {
		return err
	}
	info, err := launch.Detect(os.Getenv)
	if err != nil {
		return err
	}
	if err := fitsMemory(o.cfg.Scale, o.cfg.EdgeFactor, info.Size); err != nil {
		return err
	}
	if o.cfg.Dist.Threads == 0 {
		o.cfg.Dist.Threads = max(1, runtime.NumCPU()/max(1, info.LocalSize))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return onJob(ctx, func(ctx context.Context, w *comm.World, cc *collective.Comm) error {
		return bfsRank(ctx, c, o, w, cc)
	})
}

// onJob joins the job this process is a rank of and runs f in it.
func onJob(ctx context.Context, f func(ctx context.Context, w *comm.World, cc *collective.Comm) error) error {
	w, err := comm.Join(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	cc, err := collective.New(ctx, w, collective.Config{})
	if err != nil {
		return err
	}
	defer cc.Close()
	return f(ctx, w, cc)
}

func bfsRank(ctx context.Context, c *cli, o *bfsOpts, w *comm.World, cc *collective.Comm) error {
	d, err := graph.NewDist(ctx, w, cc, int64(1)<<o.cfg.Scale, o.cfg.Dist)
	if err != nil {
		return err
	}
	if w.Rank() == 0 && !o.quiet {
		o.cfg.Progress = c.stderr
	}
	res, err := graph.Run(ctx, d, o.cfg)
	if err != nil {
		d.Close(ctx)
		return err
	}
	rss, err := gatherRSS(ctx, cc)
	if err != nil {
		return err
	}
	if err := d.Close(ctx); err != nil {
		return err
	}
	if w.Rank() != 0 {
		return nil
	}
	rep := newBFSReport(res, o.mode, rss)
	rep.Impl = o.impl
	if o.svg != "" {
		if err := writeBFSSVGs(c.stderr, o.svg, append(o.other, rep)); err != nil {
			return err
		}
	}
	if o.json {
		return writeJSON(c.stdout, rep)
	}
	return rep.write(c.stdout)
}

// errTooBig is a graph that would not fit in this host's memory.
var errTooBig = errors.New("graph too large for memory")
