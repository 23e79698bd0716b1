package kvbench

import (
	"context"
	"encoding/binary"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/plexus-hpc/plexus/agree"
	"github.com/plexus-hpc/plexus/agree/group"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// AgreeConfig is one in-process run: Replicas members of a Team (on CPUs
// of Model, pinned when Pin), Clients goroutines each proposing a value
// at replica i%Replicas and waiting for it to be decided there.
type AgreeConfig struct {
	Replicas, Clients int
	Mode              group.Mode
	Duration          time.Duration
	Model             *topo.Model
	CPUs              []int
	Pin               bool
	// Batch is the most accepts per broadcast (group.Config's
	// BroadcastBatch); zero means 1, Smelt's one broadcast per decision.
	Batch int
	// CompactEvery is how many slots the replicas let pass between
	// snapshots; zero means never.
	CompactEvery uint64
	// Topology is the tree of Mode Tree (group.TeamConfig's); zero means
	// tree.Adaptive.
	Topology tree.Topology
}

func (c AgreeConfig) team() group.TeamConfig {
	return group.TeamConfig{Replicas: c.Replicas, Mode: c.Mode, Model: c.Model, CPUs: c.CPUs, Pin: c.Pin, Topology: c.Topology}
}

// impl names the broadcast in rows: "tree" (adaptive), "sequential", or
// "tree-" and the topology's name for another tree.
func (c AgreeConfig) impl() string {
	if c.Mode == group.Tree && c.Topology != 0 && c.Topology != tree.Adaptive {
		return "tree-" + c.Topology.String()
	}
	return c.Mode.String()
}

func (c AgreeConfig) replicaConfig(id int) group.Config {
	return group.Config{Agree: agree.Config{ID: id, Replicas: c.Replicas},
		BroadcastBatch: max(c.Batch, 1), CompactEvery: c.CompactEvery}
}

// Agree runs one in-process measurement. Values are 16 bytes, the
// client's number and its request's; the row carries the acceptor's and
// the leader's busy time per decision (group.Load).
func Agree(ctx context.Context, cfg AgreeConfig) (Row, error) {
	team, err := group.NewTeam(cfg.team())
	if err != nil {
		return Row{}, err
	}
	answers := newAnswers(cfg.Clients)
	var rs []*group.Replica
	for id := range cfg.Replicas {
		rc := cfg.replicaConfig(id)
		rc.Apply = func(e agree.Entry) { answerAt(answers, cfg.Replicas, id, e.Value) }
		rc.Snapshot = func() []byte { return []byte{} } // the bench keeps no state
		r, err := group.New(rc, team.Net(id))
		if err != nil {
			return Row{}, err
		}
		rs = append(rs, r)
	}
	team.Attach(rs)
	ctx, cancel := context.WithCancel(ctx)
	var bg sync.WaitGroup
	defer bg.Wait()
	defer cancel()
	bg.Add(len(rs))
	for _, r := range rs {
		go func() { defer bg.Done(); _ = r.Run(ctx) }()
	}
	before := loads(rs)
	lat, elapsed, err := drive(ctx, cfg, rs, answers)
	if err != nil {
		return Row{}, err
	}
	row := row("agree", cfg.impl(), cfg.Replicas, cfg.Clients, lat, elapsed)
	row.AcceptorNs, row.LeaderNs = busyPerOp(before, loads(rs), len(lat))
	return row, nil
}

// loads reads every replica's load.
func loads(rs []*group.Replica) []group.Load {
	out := make([]group.Load, len(rs))
	for i, r := range rs {
		out[i] = r.Load()
	}
	return out
}

// busyPerOp returns the busy nanoseconds per decision of the first
// acceptor (replica 1) and leader (replica 0) between two readings.
func busyPerOp(before, after []group.Load, ops int) (acceptor, leader float64) {
	if ops == 0 {
		return 0, 0
	}
	per := func(i int) float64 {
		return float64(after[i].Sub(before[i]).Busy.Nanoseconds()) / float64(ops)
	}
	return per(1 % len(after)), per(0)
}

// drive runs the closed-loop clients for the duration and returns every
// response time, sorted.
func drive(ctx context.Context, cfg AgreeConfig, rs []*group.Replica, answers []answer) ([]time.Duration, time.Duration, error) {
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(cfg.Duration)
	for c := range cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			yield := time.Duration(0)
			if cfg.Pin && cfg.Replicas < runtime.GOMAXPROCS(0) { // the replicas spin on Ps of their own
				yield = yieldFor
			}
			mine := proposer(ctx, rs[c%len(rs)], c, &answers[c], end, yield)
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(all)
	return all, time.Since(start), ctx.Err()
}

// proposer is client c: it proposes its next value at r, waits for it to
// be applied there, and returns the response times.
func proposer(ctx context.Context, r *group.Replica, c int, a *answer, end time.Time, yield time.Duration) []time.Duration {
	var lat []time.Duration
	for seq := uint64(1); time.Now().Before(end); seq++ {
		v := make([]byte, 16)
		binary.LittleEndian.PutUint64(v, uint64(c))
		binary.LittleEndian.PutUint64(v[8:], seq)
		t0 := time.Now()
		if r.Propose(ctx, v) != nil || !a.await(ctx, seq, yield) {
			return lat
		}
		lat = append(lat, time.Since(t0))
	}
	return lat
}
