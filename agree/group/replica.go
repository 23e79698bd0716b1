package group

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/plexus-hpc/plexus/agree"
)

// Config describes one replica of a group.
type Config struct {
	// Agree is the protocol's configuration (ID, Replicas, ticks).
	Agree agree.Config
	// Tick is the period of the protocol's clock (default 5ms): with the
	// protocol's defaults a silent leader or acceptor is replaced after
	// 20 to 40 ticks (up to 16 times longer right after changes of view
	// that have not yet decided anything: see agree.Config's
	// ElectionTicks), and at once when a send to it fails.
	Tick time.Duration
	// Ticks, if not nil, replaces the ticker: the replica ticks once per
	// value received (tests drive time by hand).
	Ticks <-chan time.Time
	// Apply is called with every decided entry, in slot order, on the
	// replica's goroutine (no-ops, with a nil Value, included). On a Team
	// a small Value may share a block of memory (a KiB) with other values
	// the replica received, which it keeps alive: an application that
	// keeps many values for long copies them.
	Apply func(agree.Entry)
	// CompactEvery, when positive and Snapshot is set, makes the replica
	// compact its log every CompactEvery applied slots: it takes
	// Snapshot() of the state Apply built and hands it to the protocol,
	// which then forgets the entries before it (agree.Node.Compact).
	CompactEvery uint64
	// Snapshot returns the applied state, on the replica's goroutine,
	// as bytes that Restore reads.
	Snapshot func() []byte
	// Restore replaces the applied state by a snapshot (the replica was
	// restarted or fell behind the others' compaction point), on the
	// replica's goroutine, before the entries after it are applied.
	Restore func(agree.Snapshot)
	// BroadcastBatch is the most accepts in one broadcast frame (default
	// 64): a burst of decisions costs one broadcast per BroadcastBatch.
	// 1 broadcasts every accept by itself, as Smelt's 1Paxos does, so
	// that the acceptor's broadcast is paid per decision.
	BroadcastBatch int
	// OnTick, when not nil, is called on the replica's goroutine after
	// every tick (servers recheck what waits on the replica's state).
	OnTick func()
	// Log receives failures to send; nil means slog.Default().
	Log *slog.Logger
}

// Replica runs an agree.Node: one goroutine (Run) steps it with the
// frames the Net delivers, ticks it, sends what it returns and applies
// its decisions. Propose, Deliver and Call may be called from any
// goroutine.
type Replica struct {
	cfg   Config
	node  *agree.Node
	net   Net
	inbox chan agree.Message
	calls chan func(*agree.Node)
	done  chan struct{}
	out   [][]agree.Message // per destination, reused
	bcast []agree.Message   // accepts to broadcast, reused
	frame []byte            // the last frame sent, reused (a Net copies)
	limit int               // the longest frame net carries (0: any)
	load  loadClock
	// On a Team: sweeps counts the loop's sweeps; prof, set by
	// Team.Attach when the team profiles, times their parts.
	sweeps int
	prof   *probe
}

// New returns a replica that will run on net once Run is called.
func New(cfg Config, net Net) (*Replica, error) {
	node, err := agree.New(cfg.Agree)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if cfg.Tick < 0 {
		return nil, fmt.Errorf("%w: tick %v, want a positive period (or 0 for the default)", ErrConfig, cfg.Tick)
	}
	if cfg.Tick == 0 {
		cfg.Tick = 5 * time.Millisecond
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Apply == nil {
		cfg.Apply = func(agree.Entry) {}
	}
	if cfg.Restore == nil {
		cfg.Restore = func(agree.Snapshot) {}
	}
	if cfg.BroadcastBatch <= 0 {
		cfg.BroadcastBatch = broadcastBatch
	}
	if cfg.OnTick == nil {
		cfg.OnTick = func() {}
	}
	return &Replica{cfg: cfg, node: node, net: net, limit: frameLimit(net), inbox: make(chan agree.Message, 4096),
		calls: make(chan func(*agree.Node), 1024), done: make(chan struct{}),
		out: make([][]agree.Message, cfg.Agree.Replicas)}, nil
}

// ID returns the replica's id in its group.
func (r *Replica) ID() int { return r.cfg.Agree.ID }

// Deliver hands the replica a frame that arrived from another replica.
// A frame that does not decode is dropped and its error returned.
func (r *Replica) Deliver(frame []byte) error {
	ms, err := decodeFrame(frame)
	if err != nil {
		return err
	}
	for _, m := range ms {
		select {
		case r.inbox <- m:
		case <-r.done:
			return ErrStopped
		}
	}
	return nil
}

// tryDeliver is Deliver that drops what does not fit in the inbox.
func (r *Replica) tryDeliver(frame []byte) {
	ms, err := decodeFrame(frame)
	if err != nil {
		return
	}
	for _, m := range ms {
		select {
		case r.inbox <- m:
		default:
			return
		}
	}
}

// Call runs f with the node on the replica's goroutine, between steps,
// and returns without waiting for it. Apply calls made by what f does
// (Propose) happen later, on the same goroutine.
func (r *Replica) Call(ctx context.Context, f func(*agree.Node)) error {
	select {
	case r.calls <- f:
		return nil
	case <-r.done:
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Propose submits v for agreement (see agree.Node.Propose); the
// decision comes back through Config.Apply.
func (r *Replica) Propose(ctx context.Context, v []byte) error {
	return r.Call(ctx, func(n *agree.Node) { _ = n.Propose(v) })
}

// Run steps the replica until ctx ends, and returns ctx.Err(). On a
// Team it also polls the replica's links and relays the team's
// broadcasts, on its CPU when the team pins (see Team); it then returns
// an error wrapping ErrConfig if it cannot pin.
func (r *Replica) Run(ctx context.Context) error {
	defer close(r.done)
	if n, ok := r.net.(teamNet); ok {
		return r.runTeam(ctx, n)
	}
	ticks, stop := r.ticker()
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m := <-r.inbox:
			r.step(&m)
			r.drain()
		case f := <-r.calls:
			f(r.node)
		case <-ticks:
			r.tick()
		}
		r.flush(ctx)
	}
}

// drain steps the messages already waiting, so that one Ready (and one
// frame per destination) covers a burst.
func (r *Replica) drain() {
	for range cap(r.inbox) {
		select {
		case m := <-r.inbox:
			r.step(&m)
		case f := <-r.calls:
			f(r.node)
		default:
			return
		}
	}
}

// step steps m, which it changes (its To).
func (r *Replica) step(m *agree.Message) {
	m.To = r.ID() // a tree frame addressed All arrives here as for this replica
	if err := r.node.Step(*m); err != nil {
		r.cfg.Log.Warn("group: dropped a message", "replica", r.ID(), "err", err)
	}
}
