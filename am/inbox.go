package am

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// inbox runs the handlers of the packets from one source, in the order
// they arrived.
//
// Concurrency contract: push may be called by any goroutine (the source's
// receiver, or this rank's own outbox for itself); only run takes packets.
// The queue is unbounded so that the receiver never waits for handlers:
// a receiver that stopped receiving could hold up a sender in comm's
// rendezvous while that sender's handlers wait for this rank.
type inbox struct {
	e    *Engine
	src  int
	mu   sync.Mutex
	q    [][]byte
	bell chan struct{} // a token when q became non-empty
}

func newInbox(e *Engine, src int) *inbox {
	return &inbox{e: e, src: src, bell: make(chan struct{}, 1)}
}

func (in *inbox) push(p []byte) {
	in.mu.Lock()
	in.q = append(in.q, p)
	in.mu.Unlock()
	select {
	case in.bell <- struct{}{}:
	default:
	}
}

// pop takes the oldest packet, if any.
func (in *inbox) pop() ([]byte, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.q) == 0 {
		return nil, false
	}
	p := in.q[0]
	in.q[0] = nil
	in.q = in.q[1:]
	return p, true
}

// run handles packets until ctx ends. When the queue runs dry the source
// has nothing more for now, so the replies to it go at once (idle).
func (in *inbox) run(ctx context.Context) {
	defer in.e.workers.Done()
	for {
		p, ok := in.pop()
		if !ok {
			in.e.out[in.e.rt.first[in.src]].poll(in.e.now(), true, true)
			select {
			case <-in.bell:
				continue
			case <-ctx.Done():
				return
			}
		}
		in.handle(ctx, p)
		in.e.putBuf(p)
	}
}

// deliver completes the replies in packet p at once, on the delivering
// goroutine, and queues p for its handlers if it has requests; it owns p
// and recycles it when nothing queues it. Replies skip the handler queue
// so that a handler waiting on a Call does not hold up the reply it waits
// for, and a Call's result costs no hand-off to the handler goroutine.
// Envelopes go to their source's inbox, or to the forwarder when they
// are for another rank (docs/design/am.md). A malformed packet is cut at
// the first bad message.
//
// A packet whose trailer says it holds only requests goes to the queue
// unread; in others, runs of requests are skipped with skipRequests.
func (in *inbox) deliver(p []byte) {
	if len(p) < trailerLen {
		in.e.cfg.Logger.Warn("am: dropping a packet without its trailer", "from", in.src, "bytes", len(p))
		return
	}
	flags := p[len(p)-1]
	if p = p[:len(p)-trailerLen]; flags&flagOther == 0 && len(p) > 0 {
		in.push(p)
		return
	}
	requests, replies := false, false
	var d delivery
	for rest := p; len(rest) > 0; {
		if i := skipRequests(rest); i > 0 {
			requests, rest = true, rest[i:]
			continue
		}
		m, next, err := nextMessage(rest)
		if err == nil && m.kind == kindRelay {
			err = d.relayed(in.e, m, rest[:len(rest)-len(next)])
		}
		if err != nil {
			in.e.cfg.Logger.Warn("am: dropping the rest of a malformed packet", "from", in.src, "err", err)
			p = p[:len(p)-len(rest)]
			break
		}
		if m.kind.isReply() {
			in.e.complete(in.src, m)
			replies = true
		}
		rest = next
	}
	replies = d.hand(in.e) || replies
	if requests {
		in.push(p)
	} else {
		in.e.putBuf(p)
	}
	if replies {
		// The woken callers wait on this goroutine's processor, which
		// would otherwise go back to polling comm first.
		runtime.Gosched()
	}
}

// handle runs the handlers of packet p, which holds requests and maybe
// other messages, which it skips; it stops at the first malformed one.
// It decodes with header rather than nextMessage, and runs a Post's handler without dispatch's detour,
// since this loop is most of a busy receiver's work.
func (in *inbox) handle(ctx context.Context, p []byte) {
	hs, src := in.e.hs, in.src
	for len(p) > 0 {
		k, h, call, start, end, ok := header(p)
		if !ok {
			in.e.cfg.Logger.Warn("am: dropping the rest of a malformed packet", "from", in.src, "err", headerError(p))
			return
		}
		args := p[start:end:end]
		switch {
		case k == kindPost && int(h) < len(hs):
			if _, err := hs[h](ctx, src, args); err != nil {
				in.postFailed(h, err)
			}
		case k == kindPost || k == kindCall:
			in.dispatch(ctx, message{kind: k, handler: h, call: call, payload: args})
		}
		p = p[end:]
	}
}

func (in *inbox) dispatch(ctx context.Context, m message) {
	reply, err := in.e.run(ctx, in.src, m.handler, m.payload)
	if m.kind == kindCall {
		in.reply(m, reply, err)
	} else if err != nil {
		in.postFailed(m.handler, err)
	}
}

// postFailed logs a Post's handler error, which has no caller to go to.
func (in *inbox) postFailed(h ID, err error) {
	in.e.cfg.Logger.Warn("am: posted handler failed", "from", in.src, "handler", in.e.name(h), "err", err)
}

// reply sends a Call's result back to its caller.
func (in *inbox) reply(m message, reply []byte, err error) {
	r := message{kind: kindReply, handler: m.handler, call: m.call, payload: reply}
	if err == nil && len(reply) > in.e.cfg.MaxArgs {
		err = fmt.Errorf("%w: reply of %d bytes, MaxArgs %d", ErrTooLarge, len(reply), in.e.cfg.MaxArgs)
	}
	if err != nil {
		msg := err.Error()
		if len(msg) > in.e.cfg.MaxArgs {
			msg = msg[:in.e.cfg.MaxArgs]
		}
		r.kind, r.payload = kindReplyErr, []byte(msg)
	}
	if _, err := in.e.enqueue(in.src, r); err != nil && !errors.Is(err, ErrClosed) {
		in.e.cfg.Logger.Debug("am: reply not sent", "to", in.src, "err", err)
	}
}
