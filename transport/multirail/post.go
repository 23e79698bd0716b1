package multirail

import (
	"hash/crc32"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// post numbers msg and posts it: whole when it is no longer than a
// slice and nothing waits before it, otherwise through the queue, a
// slice at a time (pump). A message of at most Config.Eager bytes that
// goes whole on one rail is eager: its caller writes it (m.direct) if
// the rail's writer is idle, and a Send (send set) does not wait for its
// acknowledgement, so the Link keeps a copy. The caller holds mu.
func (l *Link) post(msg []byte, done func(error), send bool) (*sendMsg, error) {
	if l.upCount() == 0 {
		return nil, ErrRailsDown
	}
	m := l.newSendMsg()
	m.data, m.size, m.id, m.notify = msg, len(msg), l.nextMsg, done
	l.nextMsg++
	l.unsettled = append(l.unsettled, m)
	l.inflight += len(msg)
	if len(l.queue) == 0 && len(msg) <= l.cfg.Eager {
		l.postEager(m, send)
		return m, nil
	}
	if len(l.queue) == 0 && (l.cfg.Slice < 0 || len(msg) <= l.cfg.Slice) {
		l.postPart(m, len(msg))
		return m, nil
	}
	l.queue = append(l.queue, m)
	l.pump()
	return m, nil
}

// pump posts the queue's next parts while there is room ahead
// (roomAhead): a long message goes a slice at a time, each split when it
// is posted from the rails' busy times then, so that the split follows a
// rail that slows or speeds up during the message (another flow on its
// link starting or stopping) and no rail finishes its share of a huge
// plan long before the others. The caller holds mu.
func (l *Link) pump() {
	for len(l.queue) > 0 && l.err == nil && l.roomAhead() {
		m := l.queue[0]
		n := m.size - m.next
		if l.cfg.Slice > 0 && n > l.cfg.Slice+l.cfg.Slice/2 {
			n = l.cfg.Slice // the last slice takes a short tail with it
		}
		if !l.postPart(m, n) {
			return
		}
		if m.next == m.size {
			l.queue[0] = nil
			l.queue = l.queue[1:]
		}
	}
}

// roomAhead reports whether the next slice may be posted: while the
// rails have less than Config.Ahead bytes unacknowledged, and, up to a
// slice more, while a rail up has at most one chunk unacknowledged (the
// one on its wire). Without the second rule a rail ran dry whenever the
// others held the whole budget: a slice split while the slow rail was
// busy went whole to the fast one, two such slices made Ahead, and the
// slow rail, once done, idled until the fast one's next acknowledgement,
// a slice's time later (docs/benchmarks.md, "Rails: no rail idles while
// another holds the budget"). The caller holds mu.
func (l *Link) roomAhead() bool {
	total := l.unackedTotal()
	if total < l.cfg.Ahead {
		return true
	}
	if total >= l.cfg.Ahead+max(l.cfg.Slice, 0) {
		return false
	}
	for _, rc := range l.rails {
		if !rc.down && rc.pend.len() <= 1 {
			return true
		}
	}
	return false
}

// unackedTotal is the bytes posted on the rails up and not yet
// acknowledged. The caller holds mu.
func (l *Link) unackedTotal() int {
	n := 0
	for _, rc := range l.rails {
		if !rc.down {
			n += rc.unacked
		}
	}
	return n
}

// postEager posts a small message m, whole from its caller's goroutine
// if it goes on one rail. The caller holds mu.
func (l *Link) postEager(m *sendMsg, send bool) {
	if r, done, ok := l.pickWhole(m.size); ok {
		l.postWhole(m, send, rail.Chunk{Rail: r, Len: m.size, Done: done})
		return
	}
	chunks := plan(l.cfg.Split, l.snapshot(), m.size, l.cfg.Strategy)
	if len(chunks) != 1 {
		// Split among rails (iso, weighted): each chunk leaves from the
		// caller too where its rail's writer is idle, and Send waits.
		now := l.cfg.Now()
		m.next, m.left = m.size, len(chunks)
		for _, c := range chunks {
			l.claimFor(m, l.assign(l.pendOf(m, 0, c), c.Rail, now, c.Done), c.Rail)
		}
		return
	}
	l.postWhole(m, send, chunks[0])
}

// postWhole posts m whole as chunk c. A Send's message is copied (into m
// itself when short): Send returns before its acknowledgement, and a
// failed rail's chunks are sent again. The caller holds mu.
func (l *Link) postWhole(m *sendMsg, send bool, c rail.Chunk) {
	if send && m.size <= len(m.inline) {
		m.data = append(m.inline[:0], m.data...)
	} else if send {
		m.buf = append(m.buf[:0], m.data...)
		m.data = m.buf
	}
	m.eager = send
	m.next, m.left = m.size, 1
	p := l.pendOf(m, 0, c)
	// No clock read: a whole small chunk teaches Link.learn nothing, and
	// its deadline is counted in the watch's ticks (deadline.go).
	l.claimFor(m, l.assign(p, c.Rail, time.Time{}, c.Done), c.Rail)
	if send && m.direct != nil {
		m.holds = 2 // the Link's books and the Send writing it: recycle.go
	}
}

// claimFor makes m's caller the writer of j on rail r if its writer is
// idle (m.direct), or queues j there. The caller holds mu.
func (l *Link) claimFor(m *sendMsg, j job, r int) {
	rc := l.rails[r]
	if js := rc.claim(j); js != nil {
		if m.direct == nil {
			m.direct = m.direct1[:0]
		}
		m.direct = append(m.direct, directWrite{rc, js})
	}
}

// postPart plans the n bytes of m from m.next and queues their chunks on
// their rails; false when every rail is down. The caller holds mu.
func (l *Link) postPart(m *sendMsg, n int) bool {
	chunks := plan(l.cfg.Split, l.snapshot(), n, l.cfg.Strategy)
	if chunks == nil {
		return false
	}
	l.postPlanned(m, chunks)
	return true
}

// postPlanned queues chunks, a plan of m's bytes from m.next, on their
// rails. The caller holds mu.
func (l *Link) postPlanned(m *sendMsg, chunks []rail.Chunk) {
	now, base := l.cfg.Now(), m.next
	for _, c := range chunks {
		m.next += c.Len
	}
	m.left += len(chunks)
	for _, c := range chunks {
		p := l.pendOf(m, base, c)
		l.rails[c.Rail].push(l.assign(p, c.Rail, now, c.Done), true)
	}
}

// pendOf makes the pending chunk c of m, its offset in m from base
// (assign records it). The caller holds mu.
func (l *Link) pendOf(m *sendMsg, base int, c rail.Chunk) *pendChunk {
	data := m.data[base+c.Offset : base+c.Offset+c.Len]
	h := header{kind: kindData, len: uint32(c.Len), msg: m.id, off: uint64(base + c.Offset), total: uint64(m.size),
		crc: crc32.Checksum(data, castagnoli)}
	p := &m.first
	if m.firstUsed {
		p = &pendChunk{}
	}
	m.firstUsed = true
	*p = pendChunk{h: h, data: data, msg: m}
	return p
}
