package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/graph"
	"github.com/plexus-hpc/plexus/launch"
)

var graphBCCmd = &command{
	name:    "graph bc",
	summary: "betweenness centrality (Brandes) on a Kronecker or R-MAT graph across the job's ranks",
	usage: `graph bc [--scale SCALE] [--edgefactor N] [--rmat] [--k N] [--seed N] [--impl loops|tasks] [--json]

Brandes' betweenness centrality on Plexus, from --k sources sampled among
the vertices with an edge (--k 0: every vertex, exact scores). The graph
is the Graph500 Kronecker graph (initiator 0.57, 0.19, 0.19) or, with
--rmat, SSCA#2's R-MAT (0.55, 0.1, 0.1, edgefactor 8 unless given),
distributed as in graph bfs. Path counts and dependencies are sent to
each vertex's home rank as aggregated active messages. --impl tasks runs
each level as a task loop over the rank's own vertices, with levels, path
counts and dependencies in pgas global arrays and every update of another
rank's vertex carried by a task at its home; --impl loops (the default)
uses plain per-rank arrays and message batches. On one rank tasks is the
faster (it also runs a level on --threads workers); on several, loops is
as fast or faster (docs/benchmarks.md). Rank 0 prints
the time, centrality TEPS (input edges × sources / time) and the ten
most central vertices:
  plexus run -n 2 -- plexus graph bc --scale 14 --k 16
  plexus run -n 2 -- plexus graph bc --scale 14 --k 16 --impl tasks --json`,
	flags: func() *flag.FlagSet { return new(bcOpts).flagSet() },
	run:   runGraphBC,
}

func init() { addCommand(graphBCCmd) }

type bcOpts struct {
	scale, edgeFactor, k, threads int
	seed                          int64
	rmat, json                    bool
	impl                          string
}

func (o *bcOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("graph bc", flag.ContinueOnError)
	fs.IntVar(&o.scale, "scale", 12, "`SCALE`: the graph has 2^SCALE vertices")
	fs.IntVar(&o.edgeFactor, "edgefactor", 0, "`N` edges per vertex (default 16, 8 with --rmat)")
	fs.BoolVar(&o.rmat, "rmat", false, "SSCA#2's R-MAT initiator 0.55, 0.1, 0.1 instead of Graph500's")
	fs.IntVar(&o.k, "k", 16, "`N` sampled sources; 0 for every vertex (exact)")
	fs.Int64Var(&o.seed, "seed", 1, "`N` seeds the graph and the sources")
	fs.IntVar(&o.threads, "threads", 0, "goroutines per rank for generation, and task workers with --impl tasks, `N` (default CPUs / ranks on the host)")
	fs.StringVar(&o.impl, "impl", "loops", "`loops|tasks`: levels as rank goroutines over plain arrays, or as task loops over pgas global arrays")
	fs.BoolVar(&o.json, "json", false, "print one JSON object")
	return fs
}

// dist returns the Dist's configuration that --impl and --threads ask for.
func (o *bcOpts) dist() (graph.DistConfig, error) {
	cfg := graph.DistConfig{Threads: o.threads}
	switch o.impl {
	case "loops":
		cfg.Impl = graph.Loops
	case "tasks":
		cfg.Impl = graph.Tasks
	default:
		return cfg, usagef("--impl %q: want loops or tasks", o.impl)
	}
	return cfg, nil
}

func (o *bcOpts) generator() (*graph.Kronecker, error) {
	if err := firstErr(inRange("--scale", int64(o.scale), 1, graph.MaxScale), atLeast("--k", int64(o.k), 0),
		atLeast("--edgefactor", int64(o.edgeFactor), 0)); err != nil {
		return nil, err
	}
	a, b, c, ef := graph.DefaultA, graph.DefaultB, graph.DefaultC, graph.DefaultEdgeFactor
	if o.rmat {
		a, b, c, ef = 0.55, 0.1, 0.1, 8
	}
	if o.edgeFactor != 0 {
		ef = o.edgeFactor
	}
	k, err := graph.NewKronecker(o.scale, ef, a, b, c, uint64(o.seed))
	if err != nil {
		return nil, usagef("%v", err)
	}
	return k, nil
}

type bcReport struct {
	Graph      string        `json:"graph"`
	Scale      int           `json:"scale"`
	EdgeFactor int           `json:"edgefactor"`
	Ranks      int           `json:"ranks"`
	Impl       string        `json:"impl"`
	Sources    int           `json:"sources"`
	Seconds    float64       `json:"time_s"`
	TEPS       float64       `json:"centrality_TEPS"`
	Top        []graph.Score `json:"top"`
}

func runGraphBC(c *cli, args []string) error {
	o := new(bcOpts)
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	k, err := o.generator()
	if err != nil {
		return err
	}
	if _, err := o.dist(); err != nil {
		return err
	}
	info, err := launch.Detect(os.Getenv)
	if err != nil {
		return err
	}
	if err := fitsMemory(k.Scale, k.EdgeFactor, info.Size); err != nil {
		return err
	}
	if o.threads == 0 {
		o.threads = max(1, runtime.NumCPU()/max(1, info.LocalSize))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return onJob(ctx, func(ctx context.Context, w *comm.World, cc *collective.Comm) error {
		return bcRank(ctx, c, o, k, w, cc)
	})
}

func bcRank(ctx context.Context, c *cli, o *bcOpts, k *graph.Kronecker, w *comm.World, cc *collective.Comm) error {
	cfg, err := o.dist()
	if err != nil {
		return err
	}
	d, err := graph.NewDist(ctx, w, cc, k.Vertices(), cfg)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := d.Build(ctx, k); err != nil {
		d.Close(ctx)
		return err
	}
	if w.Rank() == 0 && !o.json {
		fmt.Fprintf(c.stderr, "graph bc: constructed %d vertices, %d edges in %.3f s\n", k.Vertices(), k.Edges(), time.Since(t0).Seconds())
	}
	res, err := graph.RunBC(ctx, d, k.Edges(), graph.BCConfig{K: o.k, Seed: uint64(o.seed)})
	if err != nil {
		d.Close(ctx)
		return err
	}
	if err := d.Close(ctx); err != nil || w.Rank() != 0 {
		return err
	}
	name := "kronecker"
	if o.rmat {
		name = "rmat"
	}
	rep := bcReport{Graph: name, Scale: k.Scale, EdgeFactor: k.EdgeFactor, Ranks: w.Size(), Impl: o.impl, Sources: len(res.Sources),
		Seconds: res.Seconds, TEPS: res.TEPS, Top: res.Top}
	if o.json {
		return writeJSON(c.stdout, rep)
	}
	return rep.write(c.stdout)
}

func (r bcReport) write(w io.Writer) error {
	fmt.Fprintf(w, "graph: %s SCALE %d edgefactor %d on %d ranks (%s), %d sources\ntime: %.4f s\ncentrality_TEPS: %.4g\ntop:\n",
		r.Graph, r.Scale, r.EdgeFactor, r.Ranks, r.Impl, r.Sources, r.Seconds, r.TEPS)
	for i, s := range r.Top {
		if _, err := fmt.Fprintf(w, "  %2d  vertex %-10d %.6g\n", i+1, s.Vertex, s.BC); err != nil {
			return err
		}
	}
	return nil
}
