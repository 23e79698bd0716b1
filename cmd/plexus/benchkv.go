package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plexus-hpc/plexus/agree/group"
	"github.com/plexus-hpc/plexus/internal/svg"
	"github.com/plexus-hpc/plexus/kv"
	"github.com/plexus-hpc/plexus/kv/kvbench"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

const benchKVUsage = `[--bench LIST] [--replicas LIST] [--clients LIST] [--impl LIST] [--duration D] [--transport shm|tcp|auto] [--compact N] [--batch N] [--topology NAME] [--pin] [--profile] [--at-leader] [--model DIR|FILE | --hwloc FILE] [--runs N] [--json] [--svg PREFIX]

Measures 1Paxos and the replicated key-value store, broadcast down the
machine-aware tree (impl tree) or one replica after the other (impl
sequential), every combination of the lists:
  agree    decided proposals per second and response times of replicas
           in this process (on an agree/group Team), closed-loop clients
           as goroutines proposing at replica i mod R
  kv       the store as a job (plexus kv serve under plexus run): R
           replica ranks and one load rank of C clients issuing the 80/20
           Get/Set mix with 8-byte keys and 16-byte values, over
           --transport
  kvlocal  the same mix on the store in this process: R replicas on a
           Team, client i a goroutine talking to replica i mod R
Rows: bench, impl, replicas, clients, ops_per_s, p50_us, p99_us (--json:
one JSON array). --svg PREFIX writes PREFIX-BENCH-throughput.svg and
PREFIX-BENCH-p99.svg against replicas, one line per impl (the row with
the most clients of each point). --runs N runs each case N times and
reports the median of each number. --pin runs agree and kvlocal as the
paper does: replica i pinned to this machine's i-th CPU, on trees of
its model (at most as many replicas as CPUs); --model or --hwloc gives
that model instead of this machine's sysfs one (such as the output of
plexus machine measure, whose costs shape the adaptive tree).
--compact N makes every replica snapshot its state every N slots and
drop the log before it (0: never; kv passes it to plexus kv serve).
--batch N bounds the accepts of one broadcast in agree and kvlocal
(default 1: one broadcast per decision, as in the paper). agree rows
also give the busy nanoseconds per decision of the acceptor and the
leader (acceptor_ns, leader_ns in --json): where the acceptor's
approaches 1e9/ops_per_s, its broadcast bounds the throughput.
--topology NAME builds impl tree's tree in agree and kvlocal with
another of plexus tree's topologies (default adaptive;
binary makes the root send two messages); its rows say tree-NAME.
agree rows also give the busiest replica's busy time per decision
(busiest_ns, and its id), the process's garbage collections per second
and heap allocations per decision (gc_per_s, allocs_per_op), and how
often per second the replicas' loops blocked idle (sleeps_per_s); with
--profile every replica times the parts of a sample of its loop, and
the rows split the acceptor's and the leader's busy time by part
(acceptor_parts_ns, leader_parts_ns: backlog, links, relay, step,
intake, broadcast, send, apply), at the cost of a few clock reads per sample.
--at-leader makes every agree client propose at the leader, which
answers them all, as in the paper (rows say clients_at "leader"); by
default client i proposes at replica i mod R, which forwards to the
leader and answers it.`

var benchKVCmd = &command{
	name:    "bench kv",
	summary: "measure 1Paxos and the replicated key-value store, tree vs sequential broadcast",
	usage:   "bench kv " + benchKVUsage,
	flags:   func() *flag.FlagSet { return new(benchKVOpts).flagSet("bench kv") },
	run:     func(c *cli, args []string) error { return runBenchKV(c, "bench kv", args) },
}

var kvBenchCmd = &command{
	name:    "kv bench",
	summary: "the same as plexus bench kv",
	usage:   "kv bench " + benchKVUsage,
	flags:   func() *flag.FlagSet { return new(benchKVOpts).flagSet("kv bench") },
	run:     func(c *cli, args []string) error { return runBenchKV(c, "kv bench", args) },
}

func init() {
	addCommand(benchKVCmd)
	addCommand(kvBenchCmd)
}

type benchKVOpts struct {
	benches, replicas, clients, impls string
	duration                          time.Duration
	transport, svg, topology          string
	json, pin, profile, atLeader      bool
	runs, compact, batch              int
	model                             modelFlags
}

func (o *benchKVOpts) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.StringVar(&o.benches, "bench", "agree,kv", "which benchmarks, a `LIST` of agree, kv and kvlocal")
	fs.StringVar(&o.replicas, "replicas", "3", "comma-separated replica counts `LIST`")
	fs.StringVar(&o.clients, "clients", "1,4", "comma-separated client counts `LIST`")
	fs.StringVar(&o.impls, "impl", "tree,sequential", "broadcasts, a `LIST` of tree and sequential")
	fs.DurationVar(&o.duration, "duration", 3*time.Second, "length `D` of each run")
	fs.StringVar(&o.transport, "transport", "shm", "transport between the kv job's ranks, `shm|tcp|auto`")
	fs.StringVar(&o.svg, "svg", "", "write plots to `PREFIX`-BENCH-throughput.svg and -p99.svg")
	fs.BoolVar(&o.json, "json", false, "print a JSON array instead of a table")
	fs.IntVar(&o.runs, "runs", 1, "`N` runs of each case; each number reported is its median over the runs")
	fs.IntVar(&o.compact, "compact", kv.DefaultCompactEvery, "snapshot every `N` slots and drop the log before it (0: never)")
	fs.IntVar(&o.batch, "batch", 1, "agree, kvlocal: at most `N` accepts per broadcast")
	o.model.register(fs)
	fs.StringVar(&o.topology, "topology", "adaptive", "agree, kvlocal: impl tree's tree, a topology `NAME` of plexus tree")
	fs.BoolVar(&o.profile, "profile", false, "agree: split the acceptor's and the leader's busy time by part of their loop")
	fs.BoolVar(&o.atLeader, "at-leader", false, "agree: every client proposes at the leader, which answers it")
	fs.BoolVar(&o.pin, "pin", false, "agree: pin replica i to this machine's i-th CPU (at most one replica per CPU)")
	return fs
}

func runBenchKV(c *cli, name string, args []string) error {
	o := new(benchKVOpts)
	if err := c.parse(o.flagSet(name), args); err != nil {
		return err
	}
	plan, err := o.plan()
	if err != nil {
		return usagef("%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rows, err := plan.run(ctx, c)
	if err != nil {
		return err
	}
	if o.svg != "" {
		if err := writeKVPlots(o.svg, o.benchList(), rows); err != nil {
			return err
		}
	}
	if o.json {
		return kvbench.WriteJSON(c.stdout, rows)
	}
	return kvbench.WriteTable(c.stdout, rows)
}

func (o *benchKVOpts) benchList() []string { return strings.Split(o.benches, ",") }

func kvIntList(flagName, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--%s %q: want positive integers separated by commas", flagName, s)
		}
		out = append(out, n)
	}
	return out, nil
}

func writeKVPlots(prefix string, benches []string, rows []kvbench.Row) error {
	for _, b := range benches {
		thru, resp := kvbench.Plots(rows, b)
		for suffix, p := range map[string]svg.LinePlot{"throughput": thru, "p99": resp} {
			if len(p.Series) == 0 {
				continue
			}
			if err := writeKVFile(fmt.Sprintf("%s-%s-%s.svg", prefix, b, suffix), func(w io.Writer) error {
				return svg.WriteLinePlot(w, p)
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeKVFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// kvPlan is the list of runs.
type kvPlan struct {
	o                 *benchKVOpts
	replicas, clients []int
	modes             []group.Mode
	topology          tree.Topology
	model             *topo.Model // agree and kvlocal's machine, when --pin or a model is given
}

func (o *benchKVOpts) plan() (*kvPlan, error) {
	p := &kvPlan{o: o}
	var err error
	if p.replicas, err = kvIntList("replicas", o.replicas); err != nil {
		return nil, err
	}
	if p.clients, err = kvIntList("clients", o.clients); err != nil {
		return nil, err
	}
	for _, s := range strings.Split(o.impls, ",") {
		m, err := group.ParseMode(s)
		if err != nil {
			return nil, err
		}
		p.modes = append(p.modes, m)
	}
	for _, b := range o.benchList() {
		if b != "agree" && b != "kv" && b != "kvlocal" {
			return nil, fmt.Errorf("--bench %q: want some of agree, kv and kvlocal", o.benches)
		}
	}
	if p.topology, err = tree.ParseTopology(o.topology); err != nil {
		return nil, fmt.Errorf("--topology: %w", err)
	}
	if o.compact < 0 {
		return nil, fmt.Errorf("--compact %d: want 0 (never) or a positive number of slots", o.compact)
	}
	if o.batch < 1 {
		return nil, fmt.Errorf("--batch %d: want at least 1", o.batch)
	}
	if o.runs < 1 {
		return nil, fmt.Errorf("--runs %d: want at least 1", o.runs)
	}
	if o.duration <= 0 {
		return nil, fmt.Errorf("--duration %v: want a positive duration", o.duration)
	}
	if o.transport != "shm" && o.transport != "tcp" && o.transport != "auto" {
		return nil, fmt.Errorf("--transport %q: want shm, tcp or auto", o.transport)
	}
	if err := outputDir("--svg", o.svg); err != nil {
		return nil, err
	}
	return p, p.loadModel()
}

// loadModel reads the machine the in-process benches place replicas on,
// when --pin or a model asks for one, and checks every replica count
// fits it, before the first case runs.
func (p *kvPlan) loadModel() error {
	inProcess := slices.ContainsFunc(p.o.benchList(), func(b string) bool { return b == "agree" || b == "kvlocal" })
	if !inProcess || (!p.o.pin && p.o.model == (modelFlags{})) {
		return nil
	}
	m, err := p.o.model.load()
	if err != nil {
		return err
	}
	for _, r := range p.replicas {
		if r > m.N() {
			return fmt.Errorf("--replicas %d: the machine (%s) has %d CPUs, one replica each", r, m.Name, m.N())
		}
	}
	p.model = m
	return nil
}

func (p *kvPlan) run(ctx context.Context, c *cli) ([]kvbench.Row, error) {
	var rows []kvbench.Row
	for _, b := range p.o.benchList() {
		for _, r := range p.replicas {
			for _, cl := range p.clients {
				for _, m := range p.modes {
					row, err := p.median(ctx, b, r, cl, m)
					if err != nil {
						return nil, err
					}
					fmt.Fprintf(c.stderr, "bench kv: %s %s replicas=%d clients=%d: %.0f ops/s, p99 %.0f µs\n",
						b, m, r, cl, row.OpsPerS, row.P99us)
					rows = append(rows, row)
				}
			}
		}
	}
	return rows, nil
}

// median runs a case --runs times and reports the median of each number.
func (p *kvPlan) median(ctx context.Context, bench string, replicas, clients int, m group.Mode) (kvbench.Row, error) {
	var rows []kvbench.Row
	for range p.o.runs {
		row, err := p.one(ctx, bench, replicas, clients, m)
		if err != nil {
			return kvbench.Row{}, err
		}
		rows = append(rows, row)
	}
	return kvbench.Median(rows), nil
}

func (p *kvPlan) one(ctx context.Context, bench string, replicas, clients int, m group.Mode) (kvbench.Row, error) {
	if bench == "agree" || bench == "kvlocal" {
		cfg := kvbench.AgreeConfig{Replicas: replicas, Clients: clients, Mode: m, Duration: p.o.duration,
			Batch: p.o.batch, CompactEvery: uint64(p.o.compact), Topology: p.topology, Profile: p.o.profile, AtLeader: p.o.atLeader}
		if p.model != nil {
			cfg.Model, cfg.Pin = p.model, p.o.pin
		}
		if bench == "kvlocal" {
			return kvbench.KVLocal(ctx, cfg)
		}
		return kvbench.Agree(ctx, cfg)
	}
	prog, err := kvServeProg()
	if err != nil {
		return kvbench.Row{}, err
	}
	return kvbench.Job(ctx, kvbench.JobConfig{Prog: prog, Replicas: replicas, Clients: clients, Mode: m,
		Duration: p.o.duration, Transport: p.o.transport, Compact: p.o.compact, Timeout: p.o.duration + time.Minute})
}

// kvServeProg is the command that runs the kv job's ranks: this very
// binary (tests replace it with a built plexus).
var kvServeProg = func() ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return []string{self, "kv", "serve"}, nil
}
