package am

import (
	"context"

	"github.com/plexus-hpc/plexus/comm"
)

// receiveDepth returns how many receives an inbox keeps posted for a
// source that sends large packets, in a world of size ranks. A packet
// that arrives before a receive is posted waits in comm as an unexpected
// message and is copied twice; TCP hands over a read's worth of packets
// at once (tens of them in a busy stream), and each posted receive takes
// one straight into a buffer of its own. Larger worlds post fewer, so
// that a rank pins about maxPosted buffers in all, and one per source
// past maxPosted ranks.
func receiveDepth(size int) int { return max(1, min(maxDepth, maxPosted/size)) }

const (
	maxDepth  = 16
	maxPosted = 256
)

// receiver is an inbox's receiving state: the receives posted for its
// source, oldest first, while the source sends large (aggregated)
// packets; when it sends small ones (Config.FlushBytes 1, or a trickle)
// the posted ones run out and it receives one at a time with Recv, whose
// pooled request costs less than posting and freeing one per message.
// comm matches receives of one source and tag in the order posted, and
// Recv runs only when none is posted, so packets come out in the order
// sent.
//
// Concurrency contract: the inbox's receive goroutine alone uses it.
type receiver struct {
	in     *inbox
	depth  int
	posted []posting
	buf    []byte // Recv's buffer, nil until needed
}

type posting struct {
	r   *comm.Request
	buf []byte
}

// receive takes this source's packets from comm until ctx ends or the
// source is lost.
func (in *inbox) receive(ctx context.Context) {
	defer in.e.workers.Done()
	rc := receiver{in: in, depth: receiveDepth(in.e.Size())}
	defer rc.withdraw()
	for {
		p, ok := rc.next(ctx)
		if !ok {
			return
		}
		in.deliver(p)
	}
}

// next returns the next packet, whose buffer it hands over, and keeps
// depth receives posted after a large one.
func (rc *receiver) next(ctx context.Context) ([]byte, bool) {
	e := rc.in.e
	var st comm.Status
	var err error
	buf, posted := rc.buf, len(rc.posted) > 0
	if posted {
		h := rc.posted[0]
		rc.posted = append(rc.posted[:0], rc.posted[1:]...)
		buf = h.buf
		if st, err = h.r.Wait(ctx); err == nil {
			comm.Free(h.r)
		}
	} else {
		if buf == nil {
			buf = e.getBuf()
		}
		st, err = e.w.Recv(ctx, rc.in.src, e.cfg.Tag, buf[:cap(buf)])
	}
	if err != nil {
		rc.in.receiveFailed(ctx, err)
		return nil, false
	}
	p, spare := e.keepPacket(buf[:st.Len])
	switch {
	case !e.small(len(p)):
		rc.buf = nil
		return p, rc.fill(spare)
	case posted:
		e.putBuf(spare) // a small packet: let the posted receives run out
	default:
		rc.buf = spare
	}
	return p, true
}

// fill posts receives, the first into spare, until depth are posted; it
// reports whether comm took them.
func (rc *receiver) fill(spare []byte) bool {
	for len(rc.posted) < rc.depth {
		if spare == nil {
			spare = rc.in.e.getBuf()
		}
		r, err := rc.in.e.w.Irecv(rc.in.src, rc.in.e.cfg.Tag, spare[:cap(spare)])
		if err != nil {
			rc.in.receiveFailed(rc.in.e.ctx, err)
			return false
		}
		rc.posted = append(rc.posted, posting{r: r, buf: spare})
		spare = nil
	}
	if spare != nil {
		rc.in.e.putBuf(spare)
	}
	return true
}

// receiveFailed reports the source lost, unless the engine is closing.
func (in *inbox) receiveFailed(ctx context.Context, err error) {
	if ctx.Err() == nil {
		in.e.lost(in.src, err)
	}
}

// withdraw takes back the receives still posted, so that they do not
// take the packets of a later engine on the world with the same tag: a
// Wait under an ended context withdraws a receive that has not matched.
func (rc *receiver) withdraw() {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, h := range rc.posted {
		h.r.Wait(done)
	}
}
