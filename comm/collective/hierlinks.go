package collective

import (
	"context"
	"fmt"
	"runtime"

	"github.com/plexus-hpc/plexus/coll"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/internal/wait"
)

// The leaders' side of the hierarchical collectives (hier.go): their
// exchanges on links, and the broadcast's levels.

// exchange runs a leader's doublingSteps on acc: every leader ends with
// the same value, folded by op (nil for a barrier's zero bytes).
func (h *hier) exchange(ctx context.Context, acc []byte, op func(acc, in []byte)) error {
	return exchangeSteps(ctx, doublingSteps(h.host, h.hosts), h.link, acc, h.in[:len(acc)], op)
}

// exchangeSteps runs steps (a host's doublingSteps) on acc, link giving
// the link to a step's peer host and in, len(acc) bytes, taking what
// arrives: every rank running its host's steps with its counterparts
// ends with the same value, folded by op (nil for zero bytes).
func exchangeSteps(ctx context.Context, steps []leaderStep, link func(host int) (*comm.Link, error),
	acc, in []byte, op func(acc, in []byte)) error {
	for _, s := range steps {
		l, err := link(s.peer)
		if err != nil {
			return err
		}
		if s.send {
			if err := l.Send(ctx, acc); err != nil {
				return err
			}
		}
		if !s.recv {
			continue
		}
		if err := recvExact(ctx, l, s.peer, in); err != nil {
			return err
		}
		foldStep(s.fold, acc, in, op)
	}
	return nil
}

// foldStep combines in, received in a step that folds so, into acc.
func foldStep(fold int, acc, in []byte, op func(acc, in []byte)) {
	switch {
	case fold == foldNone:
		copy(acc, in)
	case op == nil:
	case fold == foldAfter:
		op(acc, in)
	default: // foldBefore: the peer's hosts come first
		op(in, acc)
		copy(acc, in)
	}
}

// recv receives host's leader's next message into buf, which it must
// fill exactly.
func (h *hier) recv(ctx context.Context, host int, buf []byte) error {
	l, err := h.link(host)
	if err != nil {
		return err
	}
	return recvExact(ctx, l, host, buf)
}

// recvExact receives l's next message, from a rank on host, into buf,
// which it must fill exactly.
func recvExact(ctx context.Context, l *comm.Link, host int, buf []byte) error {
	n, err := recvLink(ctx, l, buf)
	if err != nil {
		return err
	}
	if n != len(buf) {
		return fmt.Errorf("%w: %d bytes from rank %d on host %d, %d expected",
			coll.ErrMismatch, n, l.Peer(), host, len(buf))
	}
	return nil
}

// bcast is Broadcast across hosts; len(buf) ≤ shm.PostBytes.
func (h *hier) bcast(ctx context.Context, me, root int, buf []byte) error {
	var k uint64
	if h.f != nil {
		h.f.seq++
		k = h.f.seq
	}
	rootHost := h.hostOf[root]
	switch {
	case me == root:
		if err := h.down(ctx, rootHost, buf); err != nil {
			return err
		}
		return h.source(ctx, k, buf)
	case h.host == rootHost: // the root posts: everyone here reads it
		if err := h.await(ctx, k, h.local[root], buf); err != nil {
			return err
		}
		if h.leader {
			if err := h.down(ctx, rootHost, buf); err != nil {
				return err
			}
		}
		h.f.a.Mark(k)
		return nil
	case h.leader:
		if err := h.recv(ctx, bcastParent(h.host, rootHost, h.hosts), buf); err != nil {
			return err
		}
		if err := h.down(ctx, rootHost, buf); err != nil {
			return err
		}
		return h.source(ctx, k, buf)
	}
	if err := h.await(ctx, k, 0, buf); err != nil {
		return err
	}
	h.f.a.Mark(k)
	return nil
}

// down sends buf to this host's children in the leaders' broadcast tree
// from rootHost, when this rank is its host's leader.
func (h *hier) down(ctx context.Context, rootHost int, buf []byte) error {
	if !h.leader {
		return nil
	}
	for _, kid := range bcastChildren(h.host, rootHost, h.hosts) {
		l, err := h.link(kid)
		if err != nil {
			return err
		}
		if err := l.Send(ctx, buf); err != nil {
			return err
		}
	}
	return nil
}

// source writes buf as post k for this host's other ranks.
func (h *hier) source(ctx context.Context, k uint64, buf []byte) error {
	if h.f == nil {
		return nil
	}
	return h.post(ctx, k, buf)
}

// await waits for post k of the area's rank r and copies it into buf.
func (h *hier) await(ctx context.Context, k uint64, r int, buf []byte) error {
	f := h.f
	f.want, f.root = k, r
	if err := h.wait(ctx, f.pendRoot); err != nil {
		return err
	}
	return h.take(k, r, buf)
}

// recvLink receives l's next message into buf, moving the world's
// transport itself while it waits, as coll's members do on their links
// (coll/progress.go): a wait that only blocks pays, on every hop, the
// wake-up of the transport's receive goroutine and then its own. Once
// the pollers' policy says sleep, it blocks in Link.Recv, so an idle rank
// burns no CPU. A serialized world's links progress in Recv anyway.
//
// A wait that ends with its message does not say ProgressDone, as coll's
// do not: the transport's receive goroutine then keeps standing aside
// until the next collective polls again, or wait.StandAside has passed.
// Said after every exchange, it woke that goroutine once per collective,
// to take the socket over just before the next poll wanted it back, which
// on crowded hosts measured about half of a two-level barrier
// (docs/benchmarks.md, "Collectives across hosts on both implementations'
// default paths").
func recvLink(ctx context.Context, l *comm.Link, buf []byte) (int, error) {
	if l.MustProgress() {
		return l.Recv(ctx, buf)
	}
	wt := wait.NewWaiter(&wait.Poller)
	progressed := false
	for {
		if n, ok, err := l.TryRecv(buf); ok || err != nil {
			return n, err
		}
		if delivered, ok := l.Progress(); ok {
			progressed = true
			if delivered {
				continue
			}
		}
		switch wt.Idle() {
		case wait.Check:
			// Goroutines this one made ready (the transport's writer with
			// this leader's own send) may wait in this P's queue: let them
			// run, as coll's waits do (coll/progress.go).
			runtime.Gosched()
			fallthrough
		case wait.Yield:
			if err := ctx.Err(); err != nil {
				if progressed {
					l.ProgressDone()
				}
				return 0, err
			}
		case wait.Sleep:
			if progressed {
				l.ProgressDone()
				progressed = false
			}
			return l.Recv(ctx, buf)
		}
	}
}
