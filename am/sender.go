package am

import (
	"context"
	"errors"
	"fmt"

	"github.com/plexus-hpc/plexus/comm"
)

// run sends the queued packets in order until q closes. After a failed
// send it drops the rest, still closing Flush markers.
//
// The packets queued at one time go out together: each is started with
// Isend and then all are waited for, so that the transport may write
// them in one system call rather than one each (TCP's queued sends);
// system calls, not the messages, were most of a busy sender's time.
func (o *outbox) run(ctx context.Context) {
	defer o.e.senders.Done()
	var failed bool
	var batch []packet
	for p := range o.q {
		batch = append(batch[:0], p)
		for more := true; more && len(batch) < cap(o.q); {
			select {
			case q, ok := <-o.q:
				if ok {
					batch = append(batch, q)
				} else {
					more = false
				}
			default:
				more = false
			}
		}
		failed = o.sendBatch(ctx, batch, failed)
	}
}

// sendBatch sends batch's packets in order and closes its Flush markers
// once the packets before them are handed to comm; it returns whether
// sending has failed (it had, or it does now).
func (o *outbox) sendBatch(ctx context.Context, batch []packet, failed bool) bool {
	for _, p := range batch {
		switch {
		case p.done != nil:
			failed = o.finish(ctx, failed)
			close(p.done)
		case failed:
		case o.dest == o.e.rank:
			o.e.inboxes[o.dest].deliver(p.b) // which recycles it
		default:
			r, err := o.e.w.Isend(o.dest, o.e.cfg.Tag, p.b)
			if err != nil {
				o.e.putBuf(p.b)
				o.sendFailed(err)
				failed = true
				continue
			}
			o.started, o.reqs = append(o.started, p), append(o.reqs, r)
		}
	}
	return o.finish(ctx, failed)
}

// finish waits for the packets started so far and recycles them; it
// returns whether sending has failed.
func (o *outbox) finish(ctx context.Context, failed bool) bool {
	if len(o.reqs) == 0 {
		return failed
	}
	if err := comm.WaitallInto(ctx, nil, o.reqs...); err != nil && !failed {
		o.sendFailed(err)
		failed = true
	}
	for _, p := range o.started {
		o.e.putBuf(p.b)
	}
	clear(o.reqs)
	clear(o.started)
	o.started, o.reqs = o.started[:0], o.reqs[:0]
	return failed
}

// sendFailed hands a failed send to e.sendFailed, not on the outbox's
// goroutine: failing the outbox takes its lock, which an append blocked
// on the full q may hold until this goroutine drains q.
func (o *outbox) sendFailed(err error) {
	o.e.workers.Add(1)
	go func() {
		defer o.e.workers.Done()
		o.e.sendFailed(o.dest, err)
	}()
}

// sendFailed handles a packet that comm could not send.
func (e *Engine) sendFailed(dest int, err error) {
	if errors.Is(err, comm.ErrPeerLost) {
		e.lost(dest, err)
		return
	}
	if e.ctx.Err() == nil {
		e.lost(dest, fmt.Errorf("am: send to rank %d: %w", dest, err))
	}
}
