package multirail

import (
	"context"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// Send sends msg and returns once the peer has acknowledged every byte
// of it, or with an error. ctx bounds only the wait for window space:
// once its chunks are out, a message is seen through (resent on the other
// rails if one fails) so that the messages behind it are not held up;
// then Send fails only when every rail is down (ErrRailsDown) or the Link
// closes. msg must not change until Send returns.
func (l *Link) Send(ctx context.Context, msg []byte) error {
	if len(msg) > l.cfg.MaxMessage {
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(msg), l.cfg.MaxMessage)
	}
	stop := context.AfterFunc(ctx, func() {
		l.mu.Lock()
		l.sendCond.Broadcast()
		l.mu.Unlock()
	})
	defer stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.err == nil && l.inflight > 0 && l.inflight+len(msg) > l.cfg.Window {
		if err := ctx.Err(); err != nil {
			return err
		}
		l.sendCond.Wait()
	}
	if l.err != nil {
		return l.err
	}
	m, err := l.post(msg)
	if err != nil {
		return err
	}
	for !m.done {
		l.sendCond.Wait()
	}
	return m.err
}

// post plans msg's chunks and queues them on their rails. The caller
// holds mu.
func (l *Link) post(msg []byte) (*sendMsg, error) {
	now := l.cfg.Now()
	chunks := plan(l.cfg.Split, l.snapshot(now), len(msg), l.cfg.Strategy)
	if chunks == nil {
		return nil, ErrRailsDown
	}
	id := l.nextMsg
	l.nextMsg++
	m := &sendMsg{left: len(chunks)}
	for _, c := range chunks {
		data := msg[c.Offset : c.Offset+c.Len]
		h := header{kind: kindData, len: uint32(c.Len), msg: id, off: uint64(c.Offset), total: uint64(len(msg)),
			crc: crc32.Checksum(data, castagnoli)}
		p := &pendChunk{h: h, data: data, msg: m}
		l.pending[chunkKey{id, h.off}] = p
		l.inflight += c.Len
		l.assign(p, c.Rail, now, c.Done)
	}
	return m, nil
}

// snapshot is the rails as the strategy sees them at now. The caller
// holds mu.
func (l *Link) snapshot(now time.Time) []rail.Rail {
	rs := make([]rail.Rail, len(l.rails))
	for i, rc := range l.rails {
		rs[i] = rail.Rail{Profile: rc.profile, Busy: max(0, rc.busyUntil.Sub(now)), Down: rc.down, Slowdown: rc.slowdown}
	}
	return rs
}

// assign queues p on rail r, predicted done at now+done, and sets its
// deadline. The caller holds mu.
func (l *Link) assign(p *pendChunk, r int, now time.Time, done time.Duration) {
	rc := l.rails[r]
	p.rail, p.posted, p.expect = r, now, done
	rc.busyUntil = now.Add(done)
	p.deadline = now.Add(2*done + l.cfg.AckTimeout)
	l.stats.Chunks[r]++
	l.stats.Bytes[r] += int64(p.h.len)
	rc.push(job{h: p.h, data: p.data})
}

// acked records the peer's acknowledgement of a chunk; a second one
// (after a resend) is ignored. The caller holds mu.
func (l *Link) acked(h header) {
	k := chunkKey{h.msg, h.off}
	p, ok := l.pending[k]
	if !ok || p.h.len != h.len {
		return
	}
	delete(l.pending, k)
	l.inflight -= int(h.len)
	l.learn(p)
	if p.msg.left--; p.msg.left == 0 {
		p.msg.done = true
	}
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
	rc.conn.Close()
	l.stats.RailsDown = append(l.stats.RailsDown, i)
	now := l.cfg.Now()
	for _, p := range l.pending {
		if p.rail != i {
			continue
		}
		r, done := rail.Pick(l.snapshot(now), int(p.h.len))
		if r < 0 {
			l.err = fmt.Errorf("%w: the last, rail %d: %v", ErrRailsDown, i, why)
			l.failWaiters(l.err)
			break
		}
		l.stats.Resent++
		l.assign(p, r, now, done)
	}
	if l.upCount() == 0 && l.err == nil {
		l.err = fmt.Errorf("%w: the last, rail %d: %v", ErrRailsDown, i, why)
		l.failWaiters(l.err)
	}
	l.mu.Unlock()
	if l.cfg.RailDown != nil {
		l.cfg.RailDown(i, why)
	}
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

// learn updates p's rail's slowdown from p's acknowledgement, now. The
// caller holds mu.
func (l *Link) learn(p *pendChunk) {
	if p.expect < learnMin {
		return
	}
	rc := l.rails[p.rail]
	took := l.cfg.Now().Sub(p.posted)
	seen := rc.slowdown * float64(took) / float64(p.expect)
	rc.slowdown = min(slowMax, max(slowMin, (1-learnRate)*rc.slowdown+learnRate*seen))
}
