package multirail

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// Send sends msg and returns once the peer has acknowledged every byte
// of it, or with an error; a message of at most Config.Eager bytes that
// goes whole on one rail returns once it is written (or queued) instead,
// its acknowledgement awaited in the background (Flush waits for it), so
// that a small message costs no round trip. ctx bounds only the wait for
// window space: once its chunks are out, a message is seen through
// (resent on the other rails if one fails) so that the messages behind
// it are not held up; then Send fails only when every rail is down
// (ErrRailsDown) or the Link closes. msg must not change until Send
// returns (the Link keeps its own copy of an eager message).
func (l *Link) Send(ctx context.Context, msg []byte) error {
	l.mu.Lock()
	m, err := l.postLocked(ctx, msg, nil, true)
	if err != nil {
		l.mu.Unlock()
		return err
	}
	ws, eager, held := m.direct, m.eager, m.holds > 0
	var w1 [1]directWrite
	if held {
		// m goes back to the Link's records once acknowledged and let
		// go below: keep nothing of it but this copy of its one write.
		w1[0], ws = ws[0], w1[:]
	}
	m.direct = nil
	l.mu.Unlock()
	for _, w := range ws {
		l.writeDirect(w.rc, w.js)
	}
	if held && letGo(m) {
		l.mu.Lock()
		l.recycle(m)
		l.mu.Unlock()
	}
	if eager {
		return nil
	}
	if l.cfg.Poll && len(msg) <= l.cfg.Eager && l.sendSpin.CompareAndSwap(false, true) {
		// A small message split among rails: its acknowledgements come
		// within a round trip, and the readers stand aside for a Recv
		// that polled; fetch them as Recv fetches messages. One Send
		// spins at a time: a stream of them, each on its goroutine,
		// would otherwise all spin on the same few CPUs.
		l.spin(ctx, func() bool { return l.sendDone(m) })
		l.sendSpin.Store(false)
	}
	if l.cfg.Poll {
		l.pollDone() // the readers bring the acknowledgements of the others
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for !m.done {
		l.sendCond.Wait()
	}
	return m.err
}

// sendDone reports whether m is done, for a spin.
func (l *Link) sendDone(m *sendMsg) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return m.done || l.err != nil
}

// Post queues msg on the rails and returns without waiting for its
// acknowledgement, so that the messages posted behind it keep every rail
// busy (a sender that waited for each message's acknowledgement would
// leave its rails idle for a round trip between messages). It waits only
// for window space, while ctx lasts, and fails as Send does before any
// chunk is out. Once Post returns nil, done is called exactly once: with
// nil when the peer has acknowledged every byte, or with the error that
// ended the message (ErrRailsDown, ErrClosed). done runs with the Link's
// lock held, on a goroutine of the Link or of its caller: it must return
// quickly and call no method of the Link. msg must not change until done
// is called.
func (l *Link) Post(ctx context.Context, msg []byte, done func(error)) error {
	l.mu.Lock()
	m, err := l.postLocked(ctx, msg, done, false)
	if err != nil {
		l.mu.Unlock()
		return err
	}
	ws := m.direct
	m.direct = nil
	l.mu.Unlock()
	for _, w := range ws {
		l.writeDirect(w.rc, w.js)
	}
	return nil
}

// Flush waits until every message posted so far is acknowledged, ctx
// ends, or the Link fails or closes (its error).
func (l *Link) Flush(ctx context.Context) error {
	if l.cfg.Poll {
		l.pollDone()
	}
	stop := l.wakeOn(ctx)
	defer stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.err == nil && len(l.unsettled) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		l.sendCond.Wait()
	}
	return l.err
}

// wakeOn wakes the Link's waiting senders when ctx ends; stop undoes it.
func (l *Link) wakeOn(ctx context.Context) (stop func() bool) {
	if ctx.Done() == nil { // a context that never ends needs no wake-up
		return func() bool { return false }
	}
	return context.AfterFunc(ctx, func() {
		l.mu.Lock()
		l.sendCond.Broadcast()
		l.mu.Unlock()
	})
}

// postLocked waits for window space and posts msg. The caller holds mu,
// which the wait releases.
func (l *Link) postLocked(ctx context.Context, msg []byte, done func(error), send bool) (*sendMsg, error) {
	if len(msg) > l.cfg.MaxMessage {
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(msg), l.cfg.MaxMessage)
	}
	if l.err == nil && l.inflight > 0 && l.inflight+len(msg) > l.cfg.Window {
		defer l.wakeOn(ctx)() // the callback takes mu only after the wait releases it
		if l.cfg.Poll {
			l.pollDone() // the readers bring the acknowledgements that make room
		}
	}
	for l.err == nil && l.inflight > 0 && l.inflight+len(msg) > l.cfg.Window {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l.sendCond.Wait()
	}
	if l.err != nil {
		return nil, l.err
	}
	return l.post(msg, done, send)
}

// snapshot is the rails as the strategy sees them. The caller holds mu.
//
// A rail's busy time is the predicted time to send what it has not had
// acknowledged yet, at its learnt rate: observed, not the predicted end
// of the last chunk given to it. With messages posted back to back, a
// rail a little slower than its profile falls behind, and a prediction
// of its end would not see that: every later message would give it the
// same share, its backlog would grow, and the receiver, reassembling in
// order, would wait for it with the other rails idle. Counted from what
// is still unacknowledged, a rail that is behind looks busier and gets
// less, and one that drained looks idle at once.
//
// What is unacknowledged includes the part of the oldest chunk already
// on its way: an acknowledgement comes only once a chunk's last byte is
// in. So the time since that chunk began to leave (railConn.onWire), up
// to its own predicted time, is taken off: counted whole, a rail near
// the end of a long chunk looked a whole chunk busier than it was, the
// next slice went to the other, and the rails of a stream ended it a
// chunk's time apart (docs/benchmarks.md, "Rails: no rail idles while
// another holds the budget").
//
// The slice is the Link's scratch (a post must not allocate), valid until
// the next snapshot: the strategy only reads it.
func (l *Link) snapshot() []rail.Rail {
	rs := l.snap[:len(l.rails)]
	var now time.Time
	for i, rc := range l.rails {
		rs[i] = rail.Rail{Profile: rc.profile, Down: rc.down, Slowdown: rc.slowdown}
		if rc.unacked == 0 {
			continue
		}
		rs[i].Busy = rs[i].Predict(rc.unacked)
		head := rc.pend.front()
		if head == nil || rc.onWire.IsZero() {
			continue
		}
		if now.IsZero() {
			now = l.cfg.Now()
		}
		gone := min(now.Sub(rc.onWire), rs[i].Predict(int(head.h.len)))
		rs[i].Busy = max(0, rs[i].Busy-gone)
	}
	return rs
}

// assign gives p to rail r, predicted done after done from now (now may
// be zero where Link.learn will not look: an eager chunk), sets its
// deadline, and returns the job that writes it, which the caller queues
// on the rail at once (pending.go, P1). The caller holds mu.
func (l *Link) assign(p *pendChunk, r int, now time.Time, done time.Duration) job {
	rc := l.rails[r]
	if rc.unacked == 0 {
		rc.onWire = now // zero for an eager chunk: counted whole
	}
	rc.unacked += int(p.h.len)
	rc.pend.push(p)
	p.rail, p.posted, p.expect, p.slow = r, now, done, rc.slowdown
	p.due = dueTick(l.tick, 2*done+l.cfg.AckTimeout, tickLen(l.cfg.AckTimeout))
	l.stats.Chunks[r]++
	l.stats.Bytes[r] += int64(p.h.len)
	return job{h: p.h, data: p.data}
}

// acked records the peer's acknowledgement h of a chunk, read from rc:
// the oldest chunk pending there (pending.go). One from a rail that is
// down, whose chunks were sent again, or for another chunk is ignored.
// The caller holds mu.
func (l *Link) acked(rc *railConn, h header) {
	p := rc.pend.front()
	if rc.down || p == nil || !p.matches(h) {
		return
	}
	rc.pend.pop()
	var now time.Time
	if rc.pend.len() > 0 || !l.eager(p.h) {
		now = l.cfg.Now() // a ping-pong's small message reads no clock
	}
	l.learn(p, now)
	rc.onWire = now // the next chunk's last bytes follow this one's
	rc.unacked -= int(h.len)
	if p.msg.left--; p.msg.left == 0 && p.msg.next == p.msg.size {
		p.msg.finish(nil)
		l.settle()
	}
	l.pump()
	l.sendCond.Broadcast()
}

// railFailed takes rail i out: its connection closes, and its chunks
// not yet acknowledged go again, each whole on the rail that delivers it
// first. With no rail left, the Link fails.
func (l *Link) railFailed(i int, why error) {
	l.mu.Lock()
	rc := l.rails[i]
	if rc.down || l.err == ErrClosed {
		l.mu.Unlock()
		return
	}
	rc.down = true
	l.idle = idlePick{} // the rails changed
	rc.shut()
	l.stats.RailsDown = append(l.stats.RailsDown, i)
	if l.upCount() == 0 {
		l.err = fmt.Errorf("%w: the last, rail %d: %v", ErrRailsDown, i, why)
		l.failWaiters(l.err) // rail i's chunks included
	} else {
		l.resend(rc)
		l.pump()
	}
	l.mu.Unlock()
	if l.cfg.RailDown != nil {
		l.cfg.RailDown(i, why)
	}
}

// resend queues the chunks of failed rail rc again, each whole on the
// rail up that delivers it first, in their order (pending.go, P2). At
// least one rail must be up. The caller holds mu.
func (l *Link) resend(rc *railConn) {
	now := l.cfg.Now()
	rc.unacked = 0
	for _, p := range rc.pend.takeAll() {
		r, done := rail.Pick(l.snapshot(), int(p.h.len))
		l.stats.Resent++
		keep(p.msg)
		l.rails[r].push(l.assign(p, r, now, done), true)
	}
}

// settle drops the wholly acknowledged messages at the head of
// unsettled from the window. The caller holds mu.
func (l *Link) settle() {
	k := 0
	for k < len(l.unsettled) && l.unsettled[k].done {
		m := l.unsettled[k]
		l.inflight -= m.size
		l.unsettled[k] = nil
		if atomic.LoadInt32(&m.holds) > 0 && letGo(m) {
			l.recycle(m)
		}
		k++
	}
	if k == len(l.unsettled) {
		l.unsettled = l.unsettled[:0] // keep the array: the next post appends there
		return
	}
	l.unsettled = l.unsettled[k:]
}

func (l *Link) upCount() int {
	n := 0
	for _, rc := range l.rails {
		if !rc.down {
			n++
		}
	}
	return n
}

// Learning how fast a rail delivers: the strategy counts a rail busy for
// its predicted times, which come from samples of an idle link; traffic
// of others on the link (or a link degraded since) makes it slower than
// that, and a Link that went on trusting its samples would keep giving
// the slowed rail the same share. So every acknowledged chunk long enough
// for its time to be the link's and not the latency's compares how long it
// took with what was predicted, and the rail's slowdown, which multiplies
// its predictions, moves part of the way towards what that says.
const (
	learnMin  = 500 * time.Microsecond // shorter predictions say little
	learnRate = 0.25                   // the weight of the newest chunk
	slowMin   = 0.5
	slowMax   = 16.0
)

// learn updates p's rail's slowdown from p's acknowledgement at now. The
// caller holds mu.
func (l *Link) learn(p *pendChunk, now time.Time) {
	if p.expect < learnMin || l.eager(p.h) { // a lazy acknowledgement says nothing of the rail
		return
	}
	rc := l.rails[p.rail]
	took := now.Sub(p.posted)
	seen := p.slow * float64(took) / float64(p.expect)
	rc.slowdown = min(slowMax, max(slowMin, (1-learnRate)*rc.slowdown+learnRate*seen))
	l.idle = idlePick{} // the rails changed
}
