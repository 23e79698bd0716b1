package am

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/plexus-hpc/plexus/comm"
)

// Post sends an active message to rank without waiting for it to run:
// handler id runs there with args, after every message this rank posted
// or called to rank before. args may be reused once Post returns.
func (e *Engine) Post(ctx context.Context, rank int, id ID, args []byte) error {
	if err := e.check(ctx, rank, id, args); err != nil {
		return err
	}
	var err error
	if e.rt.wrap[rank] {
		_, err = e.enqueue(rank, message{kind: kindPost, handler: id, payload: args})
	} else if err = e.routeErr(rank); err == nil {
		err = e.out[rank].post(id, args)
	}
	if err != nil {
		return fmt.Errorf("am: post %q to rank %d: %w", e.names[id], rank, err)
	}
	return nil
}

// Call runs handler id at rank with args, in order with the Posts and
// Calls this rank sent to rank before, and returns its reply. A handler's
// error comes back as a *RemoteError. When ctx ends first Call returns
// ctx.Err(); the handler may still run.
func (e *Engine) Call(ctx context.Context, rank int, id ID, args []byte) ([]byte, error) {
	r, err := e.send(ctx, rank, id, args)
	if err != nil {
		return nil, err
	}
	return r.Wait(ctx)
}

// CallAsync is Call without the wait: it sends the message, as Call
// does, and returns at once; the Reply's Wait returns what Call would
// have. Many Calls in flight to one rank share its packets. args may be
// reused once CallAsync returns.
func (e *Engine) CallAsync(ctx context.Context, rank int, id ID, args []byte) (*Reply, error) {
	r, err := e.send(ctx, rank, id, args)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// send sends a Call's message and returns its Reply by value, so that a
// blocking Call does not allocate one.
func (e *Engine) send(ctx context.Context, rank int, id ID, args []byte) (Reply, error) {
	if err := e.check(ctx, rank, id, args); err != nil {
		return Reply{}, err
	}
	num, ch, err := e.register(rank)
	if err != nil {
		return Reply{}, err
	}
	gen, err := e.enqueue(rank, message{kind: kindCall, handler: id, call: num, payload: args})
	if err != nil {
		e.forget(num)
		return Reply{}, fmt.Errorf("am: call %q at rank %d: %w", e.names[id], rank, err)
	}
	return Reply{e: e, out: e.out[e.rt.first[rank]], gen: gen, num: num, ch: ch}, nil
}

// Reply is a Call in flight, from CallAsync.
//
// Wait is called by one goroutine at a time.
type Reply struct {
	e    *Engine
	out  *outbox // the buffer the Call's message went into
	gen  uint64  // and which of its generations
	num  uint64
	ch   chan result
	done bool   // a Wait has returned; later ones return res again
	res  result // what it returned
}

// errZeroReply is Wait's error on a Reply that no CallAsync made.
var errZeroReply = errors.New("am: Wait on the zero Reply (CallAsync returns the Replies to wait on)")

// Wait returns the handler's reply, or its error as a *RemoteError, or
// an error wrapping comm.ErrPeerLost or ErrClosed. When ctx ends first
// it returns ctx.Err(), and the reply, should it come, is dropped.
// Calls after the first return what the first returned.
func (r *Reply) Wait(ctx context.Context) ([]byte, error) {
	switch {
	case r.done:
		return r.res.reply, r.res.err
	case r.e == nil:
		return nil, errZeroReply
	}
	select {
	case res := <-r.ch:
		return r.keep(res)
	default:
	}
	r.e.idleAfterCall(r.out, r.gen) // about to block: the buffer may go now
	select {
	case res := <-r.ch:
		return r.keep(res)
	case <-ctx.Done():
		r.out.unblock(r.gen)
		r.e.forget(r.num)
		return r.keep(result{err: ctx.Err()})
	}
}

// keep records what Wait returns, for the Waits after it.
func (r *Reply) keep(res result) ([]byte, error) {
	r.done, r.res = true, res
	return res.reply, res.err
}

// check validates a Call's or Post's arguments; the common case, all
// good, is short enough to inline.
func (e *Engine) check(ctx context.Context, rank int, id ID, args []byte) error {
	if uint(rank) < uint(len(e.out)) && int(id) < len(e.hs) && len(args) <= e.cfg.MaxArgs && ctx.Err() == nil {
		return nil
	}
	return e.checkFailed(ctx, rank, id, args)
}

// checkFailed says what check found wrong.
func (e *Engine) checkFailed(ctx context.Context, rank int, id ID, args []byte) error {
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

// keepPacket hands received packet p, which fills the start of a packet
// buffer, to its inbox and returns it with the buffer for the next
// receive. A large packet keeps its buffer, which is replaced; a small one
// is copied into a slice of its size, so that a queue of single messages
// (no aggregation) does not pin a full buffer each.
func (e *Engine) keepPacket(p []byte) (kept, next []byte) {
	if e.small(len(p)) {
		return append([]byte(nil), p...), p[:0]
	}
	return p, e.getBuf()
}

// small reports whether a packet of n bytes is small: copied out of its
// buffer when received, and a sign that its stream is not aggregated.
func (e *Engine) small(n int) bool { return n < e.cfg.maxPacket()/8 }

// putBuf recycles a packet buffer that nothing refers to any more.
func (e *Engine) putBuf(b []byte) {
	if cap(b) == e.cfg.maxPacket() {
		e.bufs.Put(&b)
	}
}

// lost fails rank's outbox, every route through rank, and every Call
// waiting on such a route with cause. The mark comes before the Calls
// fail: a Call registered earlier is failed here, a later one sees the
// mark when enqueue checks its route.
func (e *Engine) lost(rank int, cause error) {
	err := fmt.Errorf("am: rank %d: %w", rank, cause)
	e.dead[rank].CompareAndSwap(nil, &err)
	e.out[rank].fail(err)
	e.failCalls(func(p pending) bool { return e.rt.through(p.dest, rank) }, err)
}

// enqueue sends m from this rank to dest along dest's route, or returns
// why the route is lost.
// The generation is that of the buffer m went into (outbox.append).
func (e *Engine) enqueue(dest int, m message) (uint64, error) {
	if err := e.routeErr(dest); err != nil {
		return 0, err
	}
	return e.out[e.rt.first[dest]].append(m, e.rt.wrap[dest], e.rank, dest)
}

// routeErr returns why the route to dest is lost, or nil.
func (e *Engine) routeErr(dest int) error {
	for _, r := range e.rt.path[dest] {
		if err := e.dead[r].Load(); err != nil {
			return *err
		}
	}
	return nil
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

// idleAfterCall is the idleness of a rank whose goroutines wait on Calls,
// as Grappa's scheduler, which flushes when every worker of a core is
// blocked. The caller yields its processor once, so that goroutines that
// can run add their messages first; then its Call's buffer goes if no
// goroutine appended a message meanwhile (nobody is about to add to it),
// or if every message in it is a Call whose caller blocks, as this one is
// about to (outbox.block). N goroutines each blocked on a Call to one
// rank thus send their Calls as soon as the last of them blocks, while
// goroutines that keep posting keep aggregating.
func (e *Engine) idleAfterCall(o *outbox, gen uint64) {
	seq := e.appended.sample()
	runtime.Gosched()
	o.block(gen, e.now(), e.appended.sample() == seq)
}
