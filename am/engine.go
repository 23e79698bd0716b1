package am

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

// Engine is one rank's end of the active messages of a world.
//
// Concurrency contract: Call, Post, Flush and Stats may be called by any
// number of goroutines at once, handlers included; Close once, after
// which the others fail with ErrClosed.
type Engine struct {
	w     *comm.World
	rank  int
	cfg   Config
	th    thresholds
	names []string
	hs    []Handler
	now   func() time.Time

	ctx     context.Context // ends at Close; handlers and comm calls take it
	cancel  context.CancelFunc
	out     []*outbox
	inboxes []*inbox
	rt      routes                  // where each destination's messages go (NodeAggregation)
	dead    []atomic.Pointer[error] // rank -> why it is lost, once heard
	fwd     *forwarder              // hands on envelopes for other ranks
	senders sync.WaitGroup          // the outboxes' run
	workers sync.WaitGroup          // the inboxes' run and receive, and the ticker

	bufs sync.Pool // packet buffers of capacity cfg.maxPacket(), as *[]byte

	appended activity      // appends to any outbox, for idleness
	pushed   atomic.Uint64 // appended's sample at the last Push
	wake     chan struct{} // a token when an empty buffer gets a message
	stats    counters

	mu     sync.Mutex
	calls  map[uint64]pending // Calls waiting for their reply, by number
	next   uint64
	closed bool
}

// pending is a Call waiting for its reply.
type pending struct {
	dest int
	ch   chan result // capacity 1: completion never waits
}

type result struct {
	reply []byte
	err   error
}

// New starts the engine of this rank over w, with reg's handlers. It is
// collective: every rank calls it with the same table of handlers, and it
// fails with an error wrapping ErrMismatch naming the first difference
// when some rank registered another. reg takes no registrations after.
// The engine uses w's messages with tags cfg.Tag and cfg.Tag+1.
func New(ctx context.Context, w *comm.World, reg *Registry, cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if w.Serialized() {
		return nil, errors.New("am: the world is serialized (comm.Config.Serialized), but an engine uses it from several goroutines")
	}
	names, hs := reg.freeze()
	if err := handshake(ctx, w, cfg.Tag+1, names); err != nil {
		return nil, err
	}
	leader := leaderOf(w)
	if cfg.leaders != nil {
		leader = cfg.leaders[w.Rank()]
	}
	leaders, err := exchangeHosts(ctx, w, cfg.Tag+1, leader, cfg.NodeAggregation)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		rt: plan(w.Rank(), leaders, cfg.NodeAggregation),
		w:  w, rank: w.Rank(), cfg: cfg, names: names, hs: hs, now: time.Now,
		th:    thresholds{bytes: cfg.FlushBytes, age: cfg.FlushAge},
		calls: make(map[uint64]pending), wake: make(chan struct{}, 1),
	}
	e.start()
	return e, nil
}

// start makes the outboxes and inboxes and starts their goroutines.
func (e *Engine) start() {
	e.ctx, e.cancel = context.WithCancel(context.Background())
	n := e.w.Size()
	e.out = make([]*outbox, n)
	e.inboxes = make([]*inbox, n)
	e.dead = make([]atomic.Pointer[error], n)
	e.fwd = newForwarder(e)
	for r := range n {
		e.out[r], e.inboxes[r] = newOutbox(e, r), newInbox(e, r)
	}
	for r := range n {
		e.senders.Add(1)
		go e.out[r].run(e.ctx)
		e.workers.Add(1)
		go e.inboxes[r].run(e.ctx)
		if r != e.rank {
			e.workers.Add(1)
			go e.inboxes[r].receive(e.ctx)
		}
	}
	e.workers.Add(2)
	go e.tick()
	go e.fwd.run(e.ctx)
}

// tick sends the buffers whose oldest message is too old, or all of them
// once no message has come for a whole tick (the sender is idle). While
// every buffer is empty it sleeps until an append rings e.wake, so an
// idle rank does not wake every tick.
func (e *Engine) tick() {
	defer e.workers.Done()
	period := max(e.cfg.FlushAge/4, 10*time.Microsecond)
	t := time.NewTicker(period)
	defer t.Stop()
	last := e.appended.sample()
	for {
		select {
		case <-e.ctx.Done():
			return
		case now := <-t.C:
			n := e.appended.sample()
			if e.pollAll(now, n == last) {
				last = n
				continue
			}
			if !e.sleep(t, period) {
				return
			}
			last = e.appended.sample() // the append that woke it counts as activity
		}
	}
}

// pollAll polls every outbox and reports whether any still holds bytes.
func (e *Engine) pollAll(now time.Time, idle bool) bool {
	busy := false
	for _, o := range e.out {
		busy = o.tryPoll(now, idle) || busy
	}
	return busy
}

// sleep waits for an append to an empty buffer, then restarts t; it
// reports false when the engine closes first.
func (e *Engine) sleep(t *time.Ticker, period time.Duration) bool {
	select {
	case <-e.wake:
		t.Reset(period)
		return true
	case <-e.ctx.Done():
		return false
	}
}

// Rank returns this engine's rank.
func (e *Engine) Rank() int { return e.rank }

// Size returns the number of ranks.
func (e *Engine) Size() int { return len(e.out) }

// MaxArgs returns the longest args, or reply, a message may carry.
func (e *Engine) MaxArgs() int { return e.cfg.MaxArgs }

// run runs handler id for a message from src.
func (e *Engine) run(ctx context.Context, src int, id ID, args []byte) ([]byte, error) {
	if int(id) >= len(e.hs) {
		return nil, fmt.Errorf("%w: ID %d from rank %d, %d registered", ErrBadHandler, id, src, len(e.hs))
	}
	return e.hs[id](ctx, src, args)
}

func (e *Engine) name(id ID) string {
	if int(id) < len(e.names) {
		return e.names[id]
	}
	return fmt.Sprintf("#%d", id)
}

// Flush sends every buffer now and returns once their packets have been
// handed to comm (not once their handlers ran); with NodeAggregation, a
// message to another host is then with its relay, which sends it on
// without waiting. Messages to a lost rank are dropped.
func (e *Engine) Flush(ctx context.Context) error {
	dones := make([]<-chan struct{}, len(e.out))
	for r, o := range e.out {
		dones[r] = o.flush(causeFlush)
	}
	for _, d := range dones {
		select {
		case <-d:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Push sends every buffer that holds messages, now, without waiting for
// its packets to reach comm: for a sender that is about to yield its
// processor or to compute for a while, so that what it queued does not
// wait for FlushAge meanwhile. When nothing was appended since the last
// Push it returns at once. Any goroutine may call it.
func (e *Engine) Push() {
	n := e.appended.sample()
	if e.pushed.Swap(n) == n {
		return
	}
	for _, o := range e.out {
		o.push()
	}
}

// Close flushes every buffer, waits until the packets are handed to comm,
// then stops the engine's goroutines; Calls still waiting fail with
// ErrClosed. It does not close the world. Messages that other ranks send
// to this one afterwards are not handled, so ranks agree that they are
// done (with a barrier, say) before they close. When ctx ends first,
// Close abandons the unsent packets and returns ctx.Err().
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return ErrClosed
	}
	e.closed = true
	e.mu.Unlock()
	ferr := e.Flush(ctx)
	e.cancel() // before fail: an append blocked on a full queue needs its sender to move
	for _, o := range e.out {
		o.fail(ErrClosed)
	}
	for _, o := range e.out {
		close(o.q)
	}
	e.senders.Wait()
	e.workers.Wait()
	e.failCalls(func(pending) bool { return true }, ErrClosed)
	return ferr
}
