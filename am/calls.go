package am

import (
	"context"
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
	e.idleAfterCall(rank)
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

// idleAfterCall is the idleness of a rank whose goroutines wait on Calls,
// as Grappa's scheduler with no task left to run: the caller yields its
// processor once, and if no goroutine appended a message meanwhile,
// nobody is about to add to rank's buffer, so it goes now rather than at
// the next tick. Callers that keep one another busy keep aggregating.
func (e *Engine) idleAfterCall(rank int) {
	seq := e.appended.Load()
	runtime.Gosched()
	if e.appended.Load() == seq {
		e.out[rank].poll(e.now(), true, false)
	}
}
