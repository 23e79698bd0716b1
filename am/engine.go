package am

import (
	"context"
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
	senders sync.WaitGroup // the outboxes' run
	workers sync.WaitGroup // the inboxes' run and receive, and the ticker

	bufs sync.Pool // packet buffers of capacity cfg.maxPacket(), as *[]byte

	appended atomic.Uint64 // messages appended to any outbox, for idleness
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
	names, hs := reg.freeze()
	if err := handshake(ctx, w, cfg.Tag+1, names); err != nil {
		return nil, err
	}
	e := &Engine{
		w: w, rank: w.Rank(), cfg: cfg, names: names, hs: hs, now: time.Now,
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
	e.workers.Add(1)
	go e.tick()
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
	last := e.appended.Load()
	for {
		select {
		case <-e.ctx.Done():
			return
		case now := <-t.C:
			n := e.appended.Load()
			if !e.pollAll(now, n == last) && !e.sleep(t, period) {
				return
			}
			last = e.appended.Load()
		}
	}
}

// pollAll polls every outbox and reports whether any still holds bytes.
func (e *Engine) pollAll(now time.Time, idle bool) bool {
	busy := false
	for _, o := range e.out {
		busy = o.poll(now, idle, false) || busy
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

// Post sends an active message to rank without waiting for it to run:
// handler id runs there with args, after every message this rank posted
// or called to rank before. args may be reused once Post returns.
func (e *Engine) Post(ctx context.Context, rank int, id ID, args []byte) error {
	if err := e.check(ctx, rank, id, args); err != nil {
		return err
	}
	if err := e.out[rank].append(message{kind: kindPost, handler: id, payload: args}); err != nil {
		return fmt.Errorf("am: post %q to rank %d: %w", e.names[id], rank, err)
	}
	return nil
}

// Call runs handler id at rank with args, in order with the Posts and
// Calls this rank sent to rank before, and returns its reply. A handler's
// error comes back as a *RemoteError. When ctx ends first Call returns
// ctx.Err(); the handler may still run.
func (e *Engine) Call(ctx context.Context, rank int, id ID, args []byte) ([]byte, error) {
	if err := e.check(ctx, rank, id, args); err != nil {
		return nil, err
	}
	num, ch, err := e.register(rank)
	if err != nil {
		return nil, err
	}
	if err := e.out[rank].append(message{kind: kindCall, handler: id, call: num, payload: args}); err != nil {
		e.forget(num)
		return nil, fmt.Errorf("am: call %q at rank %d: %w", e.names[id], rank, err)
	}
	select {
	case r := <-ch:
		return r.reply, r.err
	case <-ctx.Done():
		e.forget(num)
		return nil, ctx.Err()
	}
}

// check validates a Call's or Post's arguments.
func (e *Engine) check(ctx context.Context, rank int, id ID, args []byte) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case rank < 0 || rank >= len(e.out):
		return fmt.Errorf("%w: rank %d, world of %d", comm.ErrBadRank, rank, len(e.out))
	case int(id) >= len(e.hs):
		return fmt.Errorf("%w: ID %d, %d registered", ErrBadHandler, id, len(e.hs))
	case len(args) > e.cfg.MaxArgs:
		return fmt.Errorf("%w: %d bytes of args for %q, MaxArgs %d", ErrTooLarge, len(args), e.names[id], e.cfg.MaxArgs)
	}
	return nil
}

// register makes a pending Call to dest.
func (e *Engine) register(dest int) (uint64, chan result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return 0, nil, ErrClosed
	}
	e.next++
	ch := make(chan result, 1)
	e.calls[e.next] = pending{dest: dest, ch: ch}
	return e.next, ch, nil
}

func (e *Engine) forget(num uint64) {
	e.mu.Lock()
	delete(e.calls, num)
	e.mu.Unlock()
}

// complete hands a reply from src to its Call, if it still waits.
func (e *Engine) complete(src int, m message) {
	e.mu.Lock()
	p, ok := e.calls[m.call]
	if ok && p.dest == src {
		delete(e.calls, m.call)
	}
	e.mu.Unlock()
	if !ok || p.dest != src {
		return
	}
	if m.kind == kindReplyErr {
		p.ch <- result{err: &RemoteError{Rank: src, Handler: e.name(m.handler), Msg: string(m.payload)}}
		return
	}
	p.ch <- result{reply: append([]byte(nil), m.payload...)} // the packet is recycled
}

// getBuf returns an empty packet buffer.
func (e *Engine) getBuf() []byte {
	if b, ok := e.bufs.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, e.cfg.maxPacket())
}

// copyPacket copies a received packet for its inbox: a small one into a
// buffer of its size, so that a queue of single messages (no aggregation)
// does not pin a full buffer each; a large one into a recycled buffer.
func (e *Engine) copyPacket(p []byte) []byte {
	if len(p) < e.cfg.maxPacket()/8 {
		return append([]byte(nil), p...)
	}
	return append(e.getBuf(), p...)
}

// putBuf recycles a packet buffer that nothing refers to any more.
func (e *Engine) putBuf(b []byte) {
	if cap(b) == e.cfg.maxPacket() {
		e.bufs.Put(&b)
	}
}

// lost fails rank's outbox and every Call waiting on it with cause.
func (e *Engine) lost(rank int, cause error) {
	err := fmt.Errorf("am: rank %d: %w", rank, cause)
	e.out[rank].fail(err)
	e.failCalls(func(p pending) bool { return p.dest == rank }, err)
}

func (e *Engine) failCalls(which func(pending) bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for num, p := range e.calls {
		if which(p) {
			delete(e.calls, num)
			p.ch <- result{err: err}
		}
	}
}

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
// handed to comm (not once their handlers ran). Messages to a lost rank
// are dropped.
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
