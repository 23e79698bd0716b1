package comm

// Invariants of the link state (see Link for the protocol):
//
//   - links.chans and links.groups only grow, under links.mu; a channel's
//     state, once made, lives as long as the world, so a Link may keep a
//     pointer to it and the transport's reader may make it before the
//     local Link exists (a peer may start a collective first).
//   - linkChan.q[head:] holds the undelivered messages, oldest first, each
//     a private pooled copy; q, head, held and owed are guarded by mu;
//     queued equals len(q)-head, written under mu and read without it, so
//     that an empty poll takes no lock.
//   - held is the window the peer has spent towards this rank and not got
//     back: queued messages plus owed. The peer only sends what its credit
//     allows, so held never exceeds linkWindow; a peer that makes it do so
//     broke the protocol and the channel is aborted.
//   - credit is what this rank may still spend sending on the channel: it
//     starts at linkWindow, spend lowers it by compare-and-swap and never
//     below zero, credit frames raise it.
//   - linkGroup.err goes from nil to its first value once.
//   - wake and more hold at most one token: a receiver (sender) that found
//     nothing (no window) waits for one, and every push (credit), abort or
//     loss leaves one, so a wait after a failed try never misses the event.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// abortTimeout bounds how long AbortLinks waits for its frames to leave.
const abortTimeout = time.Second

// maxAbortText bounds the reason carried by an abort frame.
const maxAbortText = 256

// links is a world's link state: a channel per peer and channel id, and a
// group per channel id that carries the channel's abort.
type links struct {
	mu     sync.Mutex
	next   int // first channel not reserved
	chans  map[linkKey]*linkChan
	groups map[int]*linkGroup
}

type linkKey struct{ peer, ch int }

// linkGroup is what every peer's channel with one id shares.
type linkGroup struct {
	err   atomic.Pointer[error]
	chans []*linkChan // guarded by links.mu
}

// linkChan is one channel with one peer, both directions: the messages
// received and the window given back on one side, the credit to send on
// the other.
type linkChan struct {
	group  *linkGroup
	peer   int
	ch     int
	mu     sync.Mutex
	q      []*[]byte
	head   int
	held   int64
	owed   int64
	queued atomic.Int32
	credit atomic.Int64
	// signals counts the signal frames received (Link.Signal).
	signals atomic.Uint64
	wake    chan struct{} // a message arrived, or the link failed
	more    chan struct{} // credit arrived, or the link failed
	// bell, when set, is rung with wake: a coll member polling several
	// links naps on it rather than sleeping (see coll.Belled).
	bell atomic.Pointer[chan<- struct{}]
}

// reserve hands out n consecutive channel ids.
func (l *links) reserve(n int) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n < 0 || l.next+n > LinkChannels {
		return 0, fmt.Errorf("comm: cannot reserve %d link channels, %d of %d are taken", n, l.next, LinkChannels)
	}
	first := l.next
	l.next += n
	return first, nil
}

// get returns the state of channel ch with peer, making it if need be.
func (l *links) get(peer, ch int) *linkChan {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := linkKey{peer, ch}
	if c := l.chans[k]; c != nil {
		return c
	}
	if l.chans == nil {
		l.chans = make(map[linkKey]*linkChan)
	}
	g := l.group(ch)
	c := &linkChan{group: g, peer: peer, ch: ch, wake: make(chan struct{}, 1), more: make(chan struct{}, 1)}
	c.credit.Store(linkWindow)
	l.chans[k] = c
	g.chans = append(g.chans, c)
	return c
}

// group returns channel ch's group. The caller holds l.mu.
func (l *links) group(ch int) *linkGroup {
	if g := l.groups[ch]; g != nil {
		return g
	}
	if l.groups == nil {
		l.groups = make(map[int]*linkGroup)
	}
	g := &linkGroup{}
	l.groups[ch] = g
	return g
}

// abort fails every link on channel ch with err, unless it failed before.
func (l *links) abort(ch int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	g := l.group(ch)
	if !g.err.CompareAndSwap(nil, &err) {
		return
	}
	for _, c := range g.chans {
		c.notify()
	}
}

// wakePeer wakes every waiter on a link to peer, which is lost or closed.
func (l *links) wakePeer(peer int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, c := range l.chans {
		if k.peer == peer {
			c.notify()
		}
	}
}

// deliverLink handles a frame on commLinks from peer. It runs on the
// transport's reader and never waits.
func (w *World) deliverLink(peer int, h frame.Header, payload []byte) {
	ch := int(h.Tag)
	if ch < 0 || ch >= LinkChannels {
		return
	}
	p := &w.peers[peer]
	c := p.link
	if c == nil || c.ch != ch {
		c = w.links.get(peer, ch)
		p.link = c
	}
	switch {
	case h.Kind == frame.Eager && h.Flags&flagSignal != 0:
		c.onSignal(h)
	case h.Kind == frame.Eager && h.Flags&flagAbort != 0:
		why := payload[:min(len(payload), maxAbortText)]
		w.links.abort(ch, fmt.Errorf("%w: channel %d at rank %d: %s", ErrLinkAborted, ch, peer, why))
	case h.Kind == frame.Eager:
		if !c.push(payload) {
			w.links.abort(ch, fmt.Errorf("%w: rank %d overran channel %d's window", ErrLinkAborted, peer, ch))
		}
	case h.Kind == frame.Credit:
		c.credit.Add(int64(min(h.Aux, linkWindow)))
		notify(c.more)
	}
}

// push queues a copy of payload; it reports false if the peer overran its
// window.
func (c *linkChan) push(payload []byte) bool {
	cost := int64(len(payload)) + msgOverhead
	b := getBuf(len(payload))
	copy(*b, payload)
	c.mu.Lock()
	if c.held+cost > linkWindow {
		c.mu.Unlock()
		putBuf(b)
		return false
	}
	c.held += cost
	c.q = append(c.q, b)
	c.queued.Add(1)
	c.mu.Unlock()
	notify(c.wake)
	c.ring()
	return true
}

// pop takes the oldest message, which the caller knows is there, and
// returns the window to give back now (zero until a batch has gathered).
func (c *linkChan) pop() (b *[]byte, give int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b = c.q[c.head]
	c.q[c.head] = nil
	c.head++
	if c.head == len(c.q) {
		c.q, c.head = c.q[:0], 0
	}
	c.queued.Add(-1)
	c.owed += int64(len(*b)) + msgOverhead
	if c.owed >= linkBatch {
		give, c.owed = c.owed, 0
		c.held -= give
	}
	return b, give
}

// Done reports whether a message is queued: c as the done argument of a
// transport's PollUntil, for a receiver waiting on the link.
func (c *linkChan) Done() bool { return c.queued.Load() > 0 }

// spend takes n bytes of credit if there are that many.
func (c *linkChan) spend(n int64) bool {
	for {
		have := c.credit.Load()
		if have < n {
			return false
		}
		if c.credit.CompareAndSwap(have, have-n) {
			return true
		}
	}
}

// wait blocks until ev has a token or ctx ends. The world's end also
// returns, without error: the caller's next try reports ErrClosed.
func (c *linkChan) wait(ctx context.Context, w *World, ev <-chan struct{}) error {
	if w.serial {
		return w.waitSerial(ctx, ev)
	}
	select {
	case <-ev:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-w.ctx.Done():
		return nil
	}
}

// notify wakes both the receiver and the sender of c.
func (c *linkChan) notify() {
	notify(c.wake)
	notify(c.more)
	c.ring()
}

// ring leaves a token on the bell, if the link has one.
func (c *linkChan) ring() {
	if b := c.bell.Load(); b != nil {
		select {
		case *b <- struct{}{}:
		default:
		}
	}
}

// notify leaves a token on ev unless one is there.
func notify(ev chan struct{}) {
	select {
	case ev <- struct{}{}:
	default:
	}
}

// sendAborts tells every reachable peer that channel ch is aborted.
func (w *World) sendAborts(ch int, cause error) {
	why := []byte(fmt.Sprint(cause))
	why = why[:min(len(why), maxAbortText)]
	h := frame.Header{Kind: frame.Eager, Flags: flagAbort, Comm: commLinks, Tag: int32(ch)}
	ctx, cancel := context.WithTimeout(w.ctx, abortTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for p := range w.cfg.Size {
		if p == w.cfg.Rank || w.peerErr(p) != nil {
			continue
		}
		wg.Go(func() { _ = w.route(ctx, p, h, why) })
	}
	wg.Wait()
}
