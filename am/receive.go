package am

import (
	"context"

	"github.com/plexus-hpc/plexus/comm"
)

// receiveDepth returns how many receives an inbox keeps posted for its
// source in a world of size ranks. A packet that arrives before a
// receive is posted waits in comm as an unexpected message and is copied
// twice; TCP hands over a read's worth of packets at once (tens of them
// in a busy stream), and each posted receive takes one straight into a
// buffer of its own. Larger worlds post fewer, so that a rank pins about
// maxPosted buffers in all, and one per source past maxPosted ranks.
func receiveDepth(size int) int { return max(1, min(maxDepth, maxPosted/size)) }

const (
	maxDepth  = 16
	maxPosted = 256
)

// receive takes this source's packets from comm until ctx ends or the
// source is lost. It keeps receiveDepth receives posted; comm matches
// receives of one source and tag in the order they were posted, so the
// packets come out in the order sent.
func (in *inbox) receive(ctx context.Context) {
	defer in.e.workers.Done()
	depth := receiveDepth(in.e.Size())
	reqs, bufs := make([]*comm.Request, depth), make([][]byte, depth)
	defer in.withdraw(reqs)
	for i := range reqs {
		if !in.post(&reqs[i], &bufs[i], in.e.getBuf()) {
			return
		}
	}
	for i := 0; ; i = (i + 1) % depth {
		st, err := reqs[i].Wait(ctx)
		if err != nil {
			in.receiveFailed(ctx, err)
			return
		}
		comm.Free(reqs[i])
		p, next := in.e.keepPacket(bufs[i][:st.Len])
		if !in.post(&reqs[i], &bufs[i], next) {
			return
		}
		in.deliver(p)
	}
}

// post starts a receive into buf, a packet buffer, and stores it in *r
// and *b; it reports whether it could.
func (in *inbox) post(r **comm.Request, b *[]byte, buf []byte) bool {
	req, err := in.e.w.Irecv(in.src, in.e.cfg.Tag, buf[:cap(buf)])
	if err != nil {
		*r = nil
		in.receiveFailed(in.e.ctx, err)
		return false
	}
	*r, *b = req, buf
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
func (in *inbox) withdraw(reqs []*comm.Request) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, r := range reqs {
		if r != nil {
			r.Wait(done)
		}
	}
}
