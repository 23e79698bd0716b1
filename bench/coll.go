package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/internal/baseline"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// Config says what Coll measures.
type Config struct {
	// Model gives the trees (and the predictions): ideally measured costs
	// of this machine; its CPUs must include the ones used.
	Model *topo.Model
	// CPUs are the CPUs to pin members to; nil means every CPU the process
	// may use. Collectives run with 2..len(CPUs) members (Members).
	CPUs []int
	// Members lists the team sizes; nil means just len(CPUs).
	Members []int
	// Topologies for the team results; nil means every topology but Bad.
	Topologies []tree.Topology
	// Target is roughly how long each run of a case takes; zero means
	// 30 ms, or 10 ms with Quick.
	Target time.Duration
	// Runs is how many runs of each case are made; the result is their
	// median. Zero means 15, or 3 with Quick: many short runs rather
	// than a few long ones, so that a slow phase of the machine spoils
	// few of a case's runs, and the median passes over them.
	Runs  int
	Quick bool
}

// Validate fills in defaults and checks the CPUs.
func (c *Config) Validate() error {
	if c.Model == nil || !c.Model.HasCosts() {
		return fmt.Errorf("bench: config needs a model with costs")
	}
	if c.CPUs == nil {
		cpus, err := affinity.Allowed()
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		c.CPUs = cpus
	}
	if len(c.CPUs) < 2 {
		return fmt.Errorf("bench: need at least 2 CPUs, have %v", c.CPUs)
	}
	if c.Members == nil {
		c.Members = []int{len(c.CPUs)}
	}
	for _, n := range c.Members {
		if n < 2 || n > len(c.CPUs) {
			return fmt.Errorf("bench: %d members on %d CPUs: want 2..%d", n, len(c.CPUs), len(c.CPUs))
		}
	}
	if c.Topologies == nil {
		c.Topologies = []tree.Topology{tree.Adaptive, tree.Best, tree.Binary, tree.Fibonacci, tree.Sequential, tree.MST, tree.Cluster}
	}
	if c.Target == 0 {
		c.Target = 30 * time.Millisecond
		if c.Quick {
			c.Target = 10 * time.Millisecond
		}
	}
	if c.Runs == 0 {
		c.Runs = 15
		if c.Quick {
			c.Runs = 3
		}
	}
	return nil
}

// kase is one measurement to make.
type kase struct {
	bench, impl string
	members     int
	setup       func() (body, func(), error)
	built       *tree.Tree // set by team setups
	// tree, set for team cases, builds the case's tree without running
	// it, so that cases of one tree are measured once (colltwins.go).
	tree     func() (*tree.Tree, error)
	unpinned bool // members run on goroutines as Go starts them

	// predict, set by allreduce setups, is the simulator's latency for
	// what the case times, where built's reduction plus broadcast is not.
	predict func() (float64, error)
	// model, when set, is the model built's prediction uses (hopcal.go).
	model func() *topo.Model
	// after, when set, runs once the case is measured (hopcal.go).
	after func(ns, predicted float64) error
}

// unpinnedSuffix ends the impl of a baseline run on unpinned goroutines,
// as Go programs run them, beside the same baseline on pinned ones.
const unpinnedSuffix = "-unpinned"

// withUnpinned returns ks with, after each case, its twin on unpinned
// goroutines. Go hands a channel's value or a wake-up to a goroutine
// waiting on the same thread, which pinning (one thread per member)
// prevents: pinned, every hand-off wakes another thread.
func withUnpinned(ks ...*kase) []*kase {
	var out []*kase
	for _, k := range ks {
		twin := *k
		twin.impl, twin.unpinned = k.impl+unpinnedSuffix, true
		out = append(out, k, &twin)
	}
	return out
}

// Coll measures every case and returns the results in a fixed order;
// progress, when not nil, is called after each run of a case, with the
// runs done and the runs in all.
//
// The cases of one team size are measured side by side: each is
// calibrated, then every case makes its next run in turn until each has
// Runs runs, so that slow phases of a shared or virtual machine (a
// virtual CPU moved, a neighbour busy) fall on every case alike and the
// comparisons within a size (team topologies against each other and
// against the baseline barriers) are paired. The chain calibration of a
// size (hopcal.go) runs alone before the size's other cases, whose trees
// it shapes.
func Coll(ctx context.Context, cfg Config, progress func(done, total int)) ([]Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	stages := plan(ctx, &cfg)
	total := 0
	for _, st := range stages {
		total += len(st) * cfg.Runs
	}
	var out []Result
	done := 0
	tick := func() {
		done++
		if progress != nil {
			progress(done, total)
		}
	}
	for _, st := range stages {
		rs, err := runStage(ctx, &cfg, st, tick)
		out = append(out, rs...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// runStage measures the cases of one stage side by side (see Coll) and
// returns their results in order. Each case's after hook, as its
// prediction, sees the measurement its row reports: its own, or a
// twin's (below).
//
// A team case whose tree is an earlier case's (twins) is not run; its
// result is that case's measurement, its SameTreeAs that case's impl.
func runStage(ctx context.Context, cfg *Config, ks []*kase, tick func()) ([]Result, error) {
	trees, err := stageTrees(ks)
	if err != nil {
		return nil, err
	}
	same := twins(ks, trees)
	ms := make([]*runs, len(ks))
	for i, k := range ks {
		if same[i] < 0 {
			m, err := startRuns(ctx, cfg.CPUs[:k.members], !k.unpinned, cfg.Target, k.setup)
			if err != nil {
				return nil, caseErr(k, err)
			}
			ms[i] = m
		}
		tick()
	}
	for r := 1; r < cfg.Runs; r++ {
		for i, k := range ks {
			if same[i] < 0 {
				if err := ms[i].next(ctx); err != nil {
					return nil, caseErr(k, err)
				}
			}
			tick()
		}
	}
	return stageResults(cfg, ks, same, ms)
}

// stageResults are the rows of a stage's cases, a twin's from the case
// whose tree it shares.
func stageResults(cfg *Config, ks []*kase, same []int, ms []*runs) ([]Result, error) {
	out := make([]Result, 0, len(ks))
	for i, k := range ks {
		m, of := ms[i], ""
		if j := same[i]; j >= 0 {
			m, of, k.built = ms[j], ks[j].impl, ks[j].built // the same tree
		}
		r, err := result(cfg, k, m.median(), m.iters)
		if err != nil {
			return out, caseErr(k, err)
		}
		r.SameTreeAs = of
		out = append(out, r)
	}
	return out, nil
}

func caseErr(k *kase, err error) error {
	return fmt.Errorf("bench: %s/%s members=%d: %w", k.bench, k.impl, k.members, err)
}

// result is k's row for its median ns per operation and iteration count.
func result(cfg *Config, k *kase, ns float64, ops int) (Result, error) {
	var err error
	r := Result{Bench: k.bench, Impl: k.impl, Members: k.members, NsPerOp: ns, Ops: ops}
	if k.bench == "stream" {
		r.MsgsPerSec = 1e9 / ns
	}
	switch {
	case k.predict != nil:
		r.PredictedNs, err = k.predict()
	case k.built != nil:
		m := cfg.Model
		if k.model != nil {
			m = k.model()
		}
		r.PredictedNs, err = predict(m, k.built)
	}
	if err == nil && k.after != nil {
		err = k.after(ns, r.PredictedNs)
	}
	if err != nil {
		return Result{}, err
	}
	if r.PredictedNs > 0 {
		r.Ratio = ns / r.PredictedNs
	}
	return r, nil
}

// predict is the simulator's latency for what a team case times: a
// reduction plus a broadcast on the tree (see collective.go), whose
// broadcast half is the release of an in-process team
// (tree.ReleaseBarrier), whatever the bench.
func predict(m *topo.Model, t *tree.Tree) (float64, error) {
	r, err := tree.Simulate(m, t, tree.ReleaseBarrier)
	return r.Latency, err
}

// plan returns the cases in stages, each measured side by side: the
// two-member point-to-point cases, then per team size its chain
// calibration (when it has one) and the rest of its cases.
func plan(ctx context.Context, cfg *Config) [][]*kase {
	two := 2
	ks := []*kase{
		{bench: "pingpong", impl: "atomic", members: two, setup: atomicPingPong},
		{bench: "pingpong", impl: "ring", members: two, setup: ringPingPong(ctx)},
	}
	ks = append(ks, withUnpinned(&kase{bench: "pingpong", impl: "chan", members: two, setup: chanPingPong})...)
	ks = append(ks, &kase{bench: "stream", impl: "ring", members: two, setup: ringStream(ctx)})
	ks = append(ks, withUnpinned(&kase{bench: "stream", impl: "chan", members: two, setup: chanStream})...)
	stages := [][]*kase{ks}
	for _, n := range cfg.Members {
		sm := &sizeModel{m: cfg.Model}
		if n >= 3 { // a team of two exchanges: no chain to time
			stages = append(stages, []*kase{hopCase(ctx, cfg, n, sm)})
		}
		stages = append(stages, collCases(ctx, cfg, n, sm))
	}
	return stages
}

// collCases are the cases of n members but the chain calibration, on
// trees of sm's model.
func collCases(ctx context.Context, cfg *Config, n int, sm *sizeModel) []*kase {
	cpus := cfg.CPUs[:n]
	var ks []*kase
	for _, b := range []string{"barrier", "bcast", "reduce"} {
		for _, t := range cfg.Topologies {
			k := &kase{bench: b, impl: "team-" + t.String(), members: n, model: sm.get}
			k.setup = teamSetup(ctx, sm.get, cpus, t, b, &k.built)
			k.tree = func() (*tree.Tree, error) { return teamTree(sm.get(), cpus, t) }
			ks = append(ks, k)
		}
	}
	ks = append(ks,
		&kase{bench: "barrier", impl: "dissemination", members: n, setup: dissemination(ctx, cfg.Model, cpus)},
		&kase{bench: "barrier", impl: "atomic", members: n, setup: baselineBarrier(func(n int) waiter { return baseline.NewAtomic(n) }, n)},
	)
	ks = append(ks, allreduceCases(ctx, cfg, n, sm.get)...)
	return append(ks, withUnpinned(
		&kase{bench: "barrier", impl: "cond", members: n, setup: baselineBarrier(func(n int) waiter { return baseline.NewCond(n) }, n)},
		&kase{bench: "barrier", impl: "chan", members: n, setup: baselineBarrier(func(n int) waiter { return baseline.NewChan(n) }, n)},
		&kase{bench: "barrier", impl: "waitgroup", members: n, setup: baselineBarrier(func(n int) waiter { return baseline.NewWaitGroup(n) }, n)},
		&kase{bench: "bcast", impl: "chan", members: n, setup: chanBcast(n)},
		&kase{bench: "reduce", impl: "chan", members: n, setup: chanReduce(n)},
	)...)
}
