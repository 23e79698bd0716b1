package shm

import (
	"context"

	"github.com/plexus-hpc/plexus/ring"
)

// Eager frames without a frame.Header: comm's eager sends pass (comm, tag,
// payload) down to these, which write the short header themselves (see
// QueueEager for why).

// QueueEager is Queue for an eager frame of communicator comm with tag:
// frame.Header{Kind: frame.Eager, Comm: comm, Tag: tag, Aux: len(payload)},
// whose short header it writes itself. A Header stored field by field by a
// caller and then copied whole on its way down makes the copy wait for
// the stores (store forwarding fails): a few percent of a sending rank's
// time in a message-rate run, at each layer it passes.
func (e *Endpoint) QueueEager(ctx context.Context, peer int, comm uint32, tag int32, payload []byte) error {
	if shortSize+len(payload) > bundleMax {
		return e.SendEager(ctx, peer, comm, tag, payload) // as Queue would: too big to hold back
	}
	o, ok, err := e.eagerOutbox(ctx, peer, comm, tag, payload)
	if !ok {
		return err
	}
	b := o.grow(shortSize + len(payload))
	putEagerShort(b, comm, tag, len(payload))
	copy(b[shortSize:], payload)
	return e.queued(peer, o)
}

// sendBulkEager is sendBulk for an eager frame, whose bulk frame it
// writes from the fields. The caller holds o.mu and the ring is open.
func (e *Endpoint) sendBulkEager(ctx context.Context, peer int, o *outbox, comm uint32, tag int32, payload []byte) error {
	slot, off, end, err := e.bulkReserve(ctx, peer, o, payload)
	if err != nil {
		return err
	}
	putBulkEager(slot, comm, tag, len(payload), off, end)
	e.bulkCommit(peer, o)
	return nil
}

// SendEager is Send for an eager frame of communicator comm with tag:
// frame.Header{Kind: frame.Eager, Comm: comm, Tag: tag, Aux: len(payload)},
// whose short header it writes itself (QueueEager says why it takes no Header).
// A frame of one or two slots is written straight into the ring, a longer
// one with up to bulkMax bytes of payload through the bulk buffer, a
// longer one still as Send sends it.
func (e *Endpoint) SendEager(ctx context.Context, peer int, comm uint32, tag int32, payload []byte) error {
	if len(payload) > bulkMax {
		return e.Send(ctx, peer, eagerHeader(comm, tag, len(payload)), payload)
	}
	o, ok, err := e.eagerOutbox(ctx, peer, comm, tag, payload)
	if !ok {
		return err
	}
	err = e.ready(peer, o)
	switch {
	case err != nil:
	case shortSize+len(payload) > bulkMin:
		err = e.sendBulkEager(ctx, peer, o, comm, tag, payload)
	default:
		err = e.putEagerInPlace(ctx, peer, o, comm, tag, payload)
	}
	e.release(peer, o)
	return err
}

// eagerOutbox takes peer's outbox for an eager frame. If ok is false the
// frame went to Send instead (a bad peer, which Send reports, or an
// outbox another goroutine holds, which then writes the frame), or peer
// cannot be sent to; err says how that went.
func (e *Endpoint) eagerOutbox(ctx context.Context, peer int, comm uint32, tag int32, payload []byte) (o *outbox, ok bool, err error) {
	if peer < 0 || peer >= e.cfg.Size || peer == e.cfg.Rank {
		return nil, false, e.Send(ctx, peer, eagerHeader(comm, tag, len(payload)), payload)
	}
	if err := e.sendable(peer); err != nil {
		return nil, false, err
	}
	o = &e.out[peer]
	if !e.tryTake(o) {
		return nil, false, e.Send(ctx, peer, eagerHeader(comm, tag, len(payload)), payload)
	}
	return o, true, nil
}

// putEagerInPlace writes an eager frame of one or two slots straight into
// the ring, the second slot first (the receiver polls the first's line).
// The caller holds o.mu and the ring is open.
func (e *Endpoint) putEagerInPlace(ctx context.Context, peer int, o *outbox, comm uint32, tag int32, payload []byte) error {
	n := shortSize + len(payload)
	slot, err := e.claim(ctx, peer, o.r, n)
	if err != nil {
		return err
	}
	first := min(len(payload), ring.SlotPayload-shortSize)
	if first < len(payload) {
		copy(o.r.Part(1), payload[first:])
	}
	putEagerShort(slot, comm, tag, len(payload))
	copy(slot[shortSize:], payload[:first])
	o.r.Commit(n)
	e.wake(peer)
	return nil
}
