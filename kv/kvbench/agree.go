package kvbench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
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
	// Profile profiles the replicas' loops (group.TeamConfig's): agree
	// rows then split the acceptor's and the leader's busy time by part.
	Profile bool
	// AtLeader (agree) makes every client propose at replica 0, the
	// leader, which answers them all, as in Smelt's §5.6; otherwise
	// client i proposes at replica i mod Replicas, which forwards to the
	// leader and answers it.
	AtLeader bool
}

// entry returns the replica of client c and how the replicas find the
// clients they answer (answerAt's n and id): client c is answered at
// replica c mod n when that is the replica's id.
func (c AgreeConfig) entry(client int) int {
	if c.AtLeader {
		return 0
	}
	return client % c.Replicas
}

// answerOf returns replica id's answering rule for answerAt: a group of
// n (1 when the leader answers everyone) and the id to match, or false
// for a replica that answers nobody.
func (c AgreeConfig) answerOf(id int) (n, as int, ok bool) {
	if c.AtLeader {
		return 1, 0, id == 0
	}
	return c.Replicas, id, true
}

func (c AgreeConfig) team() group.TeamConfig {
	return group.TeamConfig{Replicas: c.Replicas, Mode: c.Mode, Model: c.Model, CPUs: c.CPUs, Pin: c.Pin,
		Topology: c.Topology, Profile: c.Profile}
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
// client's number and its request's; the row carries the acceptor's,
// the leader's and the busiest replica's busy time per decision
// (group.Load), their parts under Profile, and the run's collections
// and allocations.
func Agree(ctx context.Context, cfg AgreeConfig) (Row, error) {
	team, err := group.NewTeam(cfg.team())
	if err != nil {
		return Row{}, err
	}
	answers := newAnswers(cfg.Clients)
	var rs []*group.Replica
	for id := range cfg.Replicas {
		rc := cfg.replicaConfig(id)
		if n, as, ok := cfg.answerOf(id); ok {
			rc.Apply = func(e agree.Entry) { answerAt(answers, n, as, e.Value) }
		}
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
	before := readStats(rs)
	lat, retries, elapsed, err := drive(ctx, cfg, rs, answers)
	if errors.Is(err, ErrUndecided) {
		return Row{}, fmt.Errorf("%w\n%s", err, describe(ctx, rs))
	}
	if err != nil {
		return Row{}, err
	}
	row := row("agree", cfg.impl(), cfg.Replicas, cfg.Clients, lat, elapsed)
	if cfg.AtLeader {
		row.ClientsAt = "leader"
	}
	row.Retries = retries
	before.fill(&row, readStats(rs), len(lat), elapsed)
	return row, nil
}

// describe reports each replica's protocol state (view, applied and
// compacted slots, own values still undecided), taken on the replica's
// goroutine, so that a run that fails with ErrUndecided tells where the
// request stopped; a replica that does not answer within a second is
// reported as such.
func describe(ctx context.Context, rs []*group.Replica) string {
	var b strings.Builder
	for _, r := range rs {
		st := make(chan agree.Status, 1)
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		err := r.Call(ctx, func(*agree.Node) { st <- r.Status() })
		select {
		case s := <-st:
			fmt.Fprintf(&b, "replica %d: %+v\n", r.ID(), s)
		case <-ctx.Done():
			fmt.Fprintf(&b, "replica %d: no answer (%v)\n", r.ID(), errors.Join(err, ctx.Err()))
		}
		cancel()
	}
	return b.String()
}

// attemptFor is how long a client waits for its request before it
// proposes it again. The protocol may drop a proposal without a word (one
// made at a replica that knows no leader, or lost with a frame when a
// ring's backlog is full, or in a change of leader), and only the client
// can tell, as kv's clients do (kv.ClientConfig's Attempt).
const attemptFor = 100 * time.Millisecond

// abandonAfter is how long past the end of the run a client goes on
// proposing a request: one still undecided then fails the run
// (ErrUndecided) rather than hang it.
const abandonAfter = 2 * time.Second

// drive runs the closed-loop clients for the duration and returns every
// response time, sorted, and how many proposals were made again.
func drive(ctx context.Context, cfg AgreeConfig, rs []*group.Replica, answers []answer) ([]time.Duration, int, time.Duration, error) {
	var mu sync.Mutex
	var all []time.Duration
	var retries int
	var errs []error
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
			p := proposer{r: rs[cfg.entry(c)], c: c, a: &answers[c], yield: yield}
			err := p.run(ctx, end)
			mu.Lock()
			all = append(all, p.lat...)
			retries += p.retries
			errs = append(errs, err)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(all)
	if err := errors.Join(errs...); err != nil {
		return nil, retries, 0, err
	}
	return all, retries, time.Since(start), ctx.Err()
}

// proposer is client c, proposing at r (a *group.Replica).
type proposer struct {
	r interface {
		Propose(ctx context.Context, v []byte) error
	}
	c       int
	a       *answer
	yield   time.Duration
	lat     []time.Duration // response times of the answered requests
	retries int             // proposals made again after attemptFor
}

// run proposes the client's next value, waits for it to be applied at
// r (proposing it again every attemptFor), and so on until end. It
// returns an error wrapping ErrUndecided if a request is still
// undecided abandonAfter past end.
func (p *proposer) run(ctx context.Context, end time.Time) error {
	for seq := uint64(1); time.Now().Before(end); seq++ {
		v := make([]byte, 16)
		binary.LittleEndian.PutUint64(v, uint64(p.c))
		binary.LittleEndian.PutUint64(v[8:], seq)
		t0 := time.Now()
		for attempt := 1; ; attempt++ {
			if p.r.Propose(ctx, v) != nil {
				return nil // the run is over
			}
			if p.a.await(ctx, seq, p.yield, time.Now().Add(attemptFor)) {
				break
			}
			if ctx.Err() != nil {
				return nil
			}
			if time.Now().After(end.Add(abandonAfter)) {
				return fmt.Errorf("%w: client %d's request %d, proposed %d times, the last %v after the run ended",
					ErrUndecided, p.c, seq, attempt, abandonAfter)
			}
			p.retries++
		}
		p.lat = append(p.lat, time.Since(t0))
	}
	return nil
}
