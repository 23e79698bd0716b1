package am

import (
	"context"
	"runtime"
	"sync"
)

// delivery gathers the envelopes of one received packet: inner requests
// by their original source, envelopes for other ranks by their next hop.
// Gathering keeps each source's (and each hop's) messages in packet order
// while handing them on in one piece.
type delivery struct {
	requests []batch // key: original source; b: inner messages
	forward  []batch // key: next hop; b: whole envelopes
	replies  bool
}

type batch struct {
	key int
	b   []byte
}

// add appends raw to key's batch in bs.
func add(bs []batch, key int, raw []byte) []batch {
	for i := range bs {
		if bs[i].key == key {
			bs[i].b = append(bs[i].b, raw...)
			return bs
		}
	}
	return append(bs, batch{key: key, b: append([]byte(nil), raw...)})
}

// relayed sorts envelope m, whose encoding is raw: a reply for this rank
// completes its Call now, a request for this rank joins its source's
// batch, an envelope for another rank joins its next hop's.
func (d *delivery) relayed(e *Engine, m message, raw []byte) error {
	src, dest, inner, err := unwrap(m, e.Size())
	switch {
	case err != nil:
		return err
	case dest != e.rank:
		d.forward = add(d.forward, e.rt.next(dest), raw)
	case inner.kind.isReply():
		e.complete(src, inner)
		d.replies = true
	default:
		d.requests = add(d.requests, src, m.payload)
	}
	return nil
}

// hand queues the gathered requests at their sources' inboxes and the
// envelopes at the forwarder, and reports whether replies completed.
func (d *delivery) hand(e *Engine) bool {
	for _, b := range d.requests {
		e.inboxes[b.key].push(b.b)
	}
	for _, b := range d.forward {
		e.fwd.push(b)
	}
	return d.replies
}

// forwarder hands envelopes on to their next hop. Its queue is unbounded
// so that a receiver never waits to forward: only the forwarder waits,
// for an outbox, whose sender waits only for a receiver, so relaying adds
// no cycle of waits (docs/design/am.md).
//
// Concurrency contract: push may be called by any goroutine; only run
// takes from the queue.
type forwarder struct {
	e    *Engine
	mu   sync.Mutex
	q    []batch
	bell chan struct{} // a token when q became non-empty
}

func newForwarder(e *Engine) *forwarder {
	return &forwarder{e: e, bell: make(chan struct{}, 1)}
}

func (f *forwarder) push(b batch) {
	f.mu.Lock()
	f.q = append(f.q, b)
	f.mu.Unlock()
	select {
	case f.bell <- struct{}{}:
	default:
	}
}

func (f *forwarder) take() []batch {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.q
	f.q = nil
	return q
}

// run forwards until ctx ends. Once its queue runs dry it sends the
// buffers it filled, as idle: a relayed message waits for what came
// with it, not for the next tick.
func (f *forwarder) run(ctx context.Context) {
	defer f.e.workers.Done()
	touched := make([]bool, f.e.Size())
	for {
		q := f.take()
		if len(q) == 0 {
			runtime.Gosched() // receivers on other processors may be about to push more
			q = f.take()
		}
		if len(q) == 0 {
			f.flush(touched)
			select {
			case <-f.bell:
				continue
			case <-ctx.Done():
				return
			}
		}
		for _, b := range q {
			touched[b.key] = true
			if err := f.e.out[b.key].appendRaw(b.b); err != nil {
				f.e.cfg.Logger.Debug("am: relayed messages dropped", "to", b.key, "err", err)
			}
		}
	}
}

// flush polls the outboxes in touched as idle and clears touched.
func (f *forwarder) flush(touched []bool) {
	now := f.e.now()
	for r, t := range touched {
		if t {
			f.e.out[r].poll(now, true, false)
			touched[r] = false
		}
	}
}
