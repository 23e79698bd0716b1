package comm

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// Links are ordered, reliable channels between this rank and one peer,
// apart from the world's tagged traffic: the point-to-point links on which
// the collectives of package coll run across ranks (package
// comm/collective). They satisfy coll.Link.
//
// Their frames carry communicator id commLinks, which the world's own
// traffic (communicator 0) never uses, so no user receive or probe — not
// even AnySource with AnyTag — can match a collective's message, and no
// collective can take a user's. Within commLinks the frame's Tag is the
// channel, an id in [0, LinkChannels) that ranks reserve together
// (ReserveChannels), so that several collective communicators on one world
// stay apart too. The frames are:
//
//	frame.Eager,  Tag = channel             one message
//	frame.Eager,  Tag = channel, flagAbort  the sender's collectives on the
//	                                        channel failed; payload says why
//	frame.Credit, Tag = channel, Aux = n    n bytes of window given back
//
// A link bypasses the matching table: an arriving message is appended to
// its channel's queue and TryRecv pops it, so a poll of an empty link costs
// one atomic load. Each direction of a channel has a window of linkWindow
// bytes (a message costs its length plus a small overhead): the sender
// spends it, the receiver gives it back in batches as it takes messages,
// and a sender without window waits. So a root that broadcasts faster than
// a child consumes cannot run the child out of memory.

// commLinks is the communicator id of link frames (see Link).
const commLinks = 1

// Link limits.
const (
	// LinkChannels is how many channels a world has.
	LinkChannels = 1024
	// linkWindow is the bytes in flight, per channel and direction, that a
	// sender may have before it waits for the receiver.
	linkWindow = 1 << 20
	// MaxLinkMessage is the longest message a link carries: a sender must
	// be able to gather its cost even while the receiver holds back less
	// than a batch of window.
	MaxLinkMessage = linkWindow - linkBatch - msgOverhead
)

// linkBatch is the window a receiver gathers before it gives it back, so
// that small messages do not each cost a credit frame.
const linkBatch = linkWindow / 16

// ErrLinkAborted reports a link whose channel a rank aborted (AbortLinks):
// the collectives on it failed somewhere, and waiting longer would hang.
var ErrLinkAborted = errors.New("comm: collective channel aborted")

// ErrTooLarge reports a link message longer than MaxLinkMessage.
var ErrTooLarge = errors.New("comm: link message too large")

// Link is this rank's end of the link to one peer on one channel.
//
// Concurrency contract: one goroutine at a time may send (Send, TrySend)
// and one at a time may receive (TryRecv, Recv), as on every coll.Link;
// the two may run at once. Every call is safe against the transport's
// deliveries and against peer loss and Close.
type Link struct {
	w    *World
	peer int
	ch   int
	c    *linkChan
	// The transport's signal counters, once seen to reach the peer:
	// txSig for the sending goroutine, rxSig for the receiving one
	// (Link.Signal).
	txSig, rxSig signaller
	// txCount and txAsleep are txSig's counter and the peer's sleep word.
	txCount  *atomic.Uint64
	txAsleep *atomic.Uint32
}

// ReserveChannels reserves n consecutive channels and returns the first.
// Every rank must reserve in the same order, the way MPI ranks create
// communicators together, so that the same ids name the same links on all
// of them. On a closed World it returns ErrClosed.
func (w *World) ReserveChannels(n int) (int, error) {
	if w.closed.Load() {
		return 0, ErrClosed
	}
	return w.links.reserve(n)
}

// Link returns this rank's end of the link to peer on channel ch. Calls
// with the same peer and channel share one link.
func (w *World) Link(peer, ch int) (*Link, error) {
	if err := w.checkSend(peer, 0); err != nil {
		return nil, err
	}
	if peer == w.cfg.Rank {
		return nil, fmt.Errorf("%w: link from rank %d to itself", ErrBadRank, peer)
	}
	if ch < 0 || ch >= LinkChannels {
		return nil, fmt.Errorf("comm: link channel %d outside [0, %d)", ch, LinkChannels)
	}
	w.reach(peer) // collectives wait on their links' peers
	return &Link{w: w, peer: peer, ch: ch, c: w.links.get(peer, ch)}, nil
}

// Peer returns the rank at the other end.
func (l *Link) Peer() int { return l.peer }

// SetBell makes every arrival and failure on the link also leave a token
// on bell (coll.Belled), so a member waiting on several links can block
// instead of sleeping. Call it before the link is used.
func (l *Link) SetBell(bell chan<- struct{}) { l.c.bell.Store(&bell) }

// Progress polls the world's transport once, from every peer, delivering
// in the calling goroutine what has arrived, and reports whether it
// delivered anything (coll.Progresser). ok is false when the transport
// cannot be polled, and when another goroutine is polling the world, which
// has one poller at a time (see Request.spin). When this host runs more
// ranks than it has CPUs, an empty poll gives the thread's CPU away
// (sched_yield), as Open MPI's ranks do when oversubscribed: in a
// collective every rank waits at once, and a rank that polled flat out
// would take the CPU of the rank it waits for, while one that slept would
// be woken through the transport's receive goroutine on every hop, which
// made such collectives an order of magnitude slower (docs/benchmarks.md,
// "Collectives with oversubscribed ranks polling with sched_yield", 2026-11-22).
// It polls every peer because a member waits on several links at once,
// and one collective's hops come from several peers. It is safe for
// concurrent use.
func (l *Link) Progress() (delivered, ok bool) {
	p := l.w.poll
	if p == nil || !l.w.takePoller() {
		return false, false
	}
	if u := l.w.until; u != nil && !l.w.serial {
		delivered = u.PollUntil(-1, firstFrame{})
	} else { // a serialized world's TryRecv polls for its link (pollSerialFor)
		delivered = p.Poll(-1)
	}
	l.w.afterPoll(delivered)
	return delivered, true
}

// afterPoll ends a link poll's turn as the world's poller: it yields the
// CPU after an empty poll where ranks outnumber CPUs, and after a
// delivery, if others of the world sleep until the transport's receive
// goroutine delivers to them, hands the transports back to it. That
// goroutine stands aside while anyone polls (wait.StandAside, its timers
// a millisecond on an idle VM); a caller between two waits, the common
// case here, would otherwise leave their frames undelivered for that long.
func (w *World) afterPoll(delivered bool) {
	w.stopSpinning()
	if !delivered {
		w.giveCPU()
	} else if w.sleepers.Load() > 0 {
		w.poll.PollDone(-1)
	}
}

// firstFrame, as the done argument of a transport's PollUntil, ends the
// poll at the first frame it delivers: Progress's caller looks at once
// whether that was what it waits for, and the poll does not go on to the
// ring's next slot, whose cache line the sender is about to write (a read
// there makes the sender's next write fetch the line back), which costs a
// sizeable share of a sub-microsecond collective. A serialized world's
// links poll so in TryRecv; its Progress, which signal waits call between
// looks at their counters, sweeps once as before, since PollUntil's extra
// empty sweeps only slow a barrier (docs/benchmarks.md, "Link polls that
// stop at their message" in section "Shared memory on a new host", 2026-11-25).
type firstFrame struct{}

func (firstFrame) Done() bool { return true }

// MustProgress reports whether the link's arrivals come only from
// Progress calls (a serialized world): a waiter must then go on calling
// Progress, napping with ProgressSleep, rather than stop and wait for a
// bell that only a delivery would ring (coll.ProgressSleeper).
func (l *Link) MustProgress() bool { return l.w.serial }

// ProgressSleep sleeps, in a serialized world, until a frame may have
// arrived or progressNap passes, whichever is first; the caller then
// calls Progress. The nap is bounded because a signal counted in shared
// memory (Link.Signal) raised just as the caller goes to sleep wakes
// nobody: it is looked at after the nap at the latest.
func (l *Link) ProgressSleep() {
	if !l.w.serial {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), progressNap)
	l.w.sleepSerial(ctx, nil)
	cancel()
}

// progressNap bounds a ProgressSleep.
const progressNap = time.Millisecond

// ProgressDone says Progress's caller has stopped polling and is going to
// sleep, so the transport's receive goroutines take over at once
// (coll.Progresser).
func (l *Link) ProgressDone() {
	if p := l.w.poll; p != nil {
		p.PollDone(-1)
	}
}

// Send sends p, waiting while the link's window is spent. It fails when
// the peer is lost, the world closes, the channel is aborted or ctx ends
// (ctx.Err() unchanged).
func (l *Link) Send(ctx context.Context, p []byte) error {
	for {
		ok, err := l.TrySend(p)
		if ok || err != nil {
			return err
		}
		if err := l.c.wait(ctx, l.w, l.c.more); err != nil {
			return err
		}
	}
}

// TrySend sends p if the window allows it and reports whether it did.
// It does not wait for the receiver, though the transport may block
// briefly while its own queue to the peer is full.
func (l *Link) TrySend(p []byte) (bool, error) {
	if len(p) > MaxLinkMessage {
		return false, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(p), MaxLinkMessage)
	}
	if err := l.err(); err != nil {
		return false, err
	}
	if !l.c.spend(int64(len(p)) + msgOverhead) {
		return false, nil
	}
	if err := l.w.routeEager(l.w.ctx, l.peer, commLinks, int32(l.ch), p); err != nil {
		return false, err
	}
	return true, nil
}

// TryRecv receives the next message into buf if one has arrived. It never
// waits. A message longer than buf fills buf and gives an error wrapping
// ErrTruncated; the message is consumed. Messages that arrived before the
// peer was lost are still received; then the loss is reported.
func (l *Link) TryRecv(buf []byte) (n int, ok bool, err error) {
	if l.w.serial && l.c.queued.Load() == 0 {
		l.w.pollSerialFor(l.peer, l.c) // a serialized world receives only in its calls
	}
	if l.c.queued.Load() == 0 {
		// A loss is reported after the peer's last delivery, so a second
		// look after reading it finds any message that came before.
		err := l.err()
		if l.c.queued.Load() == 0 {
			return 0, false, err
		}
	}
	return l.pop(buf)
}

// Recv waits for the next message and receives it into buf, as TryRecv.
// It sleeps in the scheduler while nothing arrives.
func (l *Link) Recv(ctx context.Context, buf []byte) (int, error) {
	for {
		n, ok, err := l.TryRecv(buf)
		if ok || err != nil {
			return n, err
		}
		if err := l.c.wait(ctx, l.w, l.c.wake); err != nil {
			return 0, err
		}
	}
}

// pop takes the oldest queued message and gives back its window once a
// batch has gathered; the credit frame is deferred work (World.later), so
// that TryRecv never waits on the network.
func (l *Link) pop(buf []byte) (int, bool, error) {
	b, give := l.c.pop()
	n := copy(buf, *b)
	full := len(*b)
	putBuf(b)
	if give > 0 {
		l.w.later(action{kind: actLinkCredit, peer: l.peer, ch: l.ch, n: int(give)})
	}
	if full > len(buf) {
		return n, true, fmt.Errorf("%w: %d-byte link message from rank %d into %d bytes",
			ErrTruncated, full, l.peer, len(buf))
	}
	return n, true, nil
}

// err returns why the link cannot be used: its channel was aborted, the
// peer is lost or the world closed.
func (l *Link) err() error {
	if err := l.c.group.err.Load(); err != nil {
		return *err
	}
	return l.w.peerErr(l.peer)
}

// AbortLinks fails every link on channel ch, here and at every other rank
// it can still reach, with an error wrapping ErrLinkAborted and cause. A
// collective that fails at one rank calls it so that the ranks waiting for
// that rank fail too rather than hang. It waits at most a second for the
// abort frames to leave.
func (w *World) AbortLinks(ch int, cause error) {
	if ch < 0 || ch >= LinkChannels {
		return
	}
	w.links.abort(ch, fmt.Errorf("%w: channel %d at rank %d: %v", ErrLinkAborted, ch, w.cfg.Rank, cause))
	w.sendAborts(ch, cause)
}

// returnLinkCredit gives n bytes of channel ch's window back to peer. If
// the frame cannot be sent the peer is lost, and its window no longer
// matters.
func (w *World) returnLinkCredit(peer, ch int, n int64) {
	h := frame.Header{Kind: frame.Credit, Comm: commLinks, Tag: int32(ch), Aux: uint64(n)}
	_ = w.route(context.WithoutCancel(w.ctx), peer, h, nil)
}
