package multirail

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"sync"

	"github.com/plexus-hpc/plexus/rail"
)

// railConn is one rail: its connection, its profile, and the queue its
// writer goroutine drains. unacked, down and slowdown are guarded by
// Link.mu; jobs by qmu.
type railConn struct {
	i        int
	conn     net.Conn
	profile  rail.Profile
	unacked  int // bytes of the chunks on the rail not yet acknowledged
	down     bool
	slowdown float64 // learnt from acks: see Link.learn

	qmu  sync.Mutex
	jobs []job
	wake chan struct{} // capacity 1: jobs were added
}

// job is a header, and for data a chunk's bytes, to write.
type job struct {
	h    header
	data []byte
}

// push queues j for the writer without blocking.
func (rc *railConn) push(j job) {
	rc.qmu.Lock()
	rc.jobs = append(rc.jobs, j)
	rc.qmu.Unlock()
	select {
	case rc.wake <- struct{}{}:
	default:
	}
}

// take removes and returns the queued jobs.
func (rc *railConn) take() []job {
	rc.qmu.Lock()
	defer rc.qmu.Unlock()
	js := rc.jobs
	rc.jobs = nil
	return js
}

// writeLoop writes the rail's queue, everything queued at once in one
// vectored write, so that small messages and acks travel together: each
// rail has its own goroutine, and chunks of one message go out in
// parallel (the paper's multicore offload).
func (l *Link) writeLoop(rc *railConn) {
	defer l.wg.Done()
	var hdrs []byte
	for {
		select {
		case <-l.stop:
			return
		case <-rc.wake:
		}
		js := rc.take()
		if len(js) == 0 {
			continue
		}
		hdrs = hdrs[:0]
		for _, j := range js {
			hdrs = append(hdrs, make([]byte, headerLen)...)
			j.h.put(hdrs[len(hdrs)-headerLen:])
		}
		bufs := make(net.Buffers, 0, 2*len(js))
		for k, j := range js {
			bufs = append(bufs, hdrs[k*headerLen:(k+1)*headerLen])
			if len(j.data) > 0 {
				bufs = append(bufs, j.data)
			}
		}
		if _, err := bufs.WriteTo(rc.conn); err != nil {
			l.railFailed(rc.i, fmt.Errorf("multirail: rail %d: writing: %w", rc.i, err))
			return
		}
	}
}

// readLoop reads the rail's chunks and acks until the rail fails.
func (l *Link) readLoop(rc *railConn) {
	defer l.wg.Done()
	hb := make([]byte, headerLen)
	for {
		err := l.readOne(rc, hb)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) || !rc.isDown(l) {
				l.railFailed(rc.i, fmt.Errorf("multirail: rail %d: %w", rc.i, err))
			}
			return
		}
	}
}

func (rc *railConn) isDown(l *Link) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return rc.down || l.err != nil
}

// readOne reads and handles one header and its chunk.
func (l *Link) readOne(rc *railConn, hb []byte) error {
	if _, err := io.ReadFull(rc.conn, hb); err != nil {
		return err
	}
	h, err := parseHeader(hb, l.cfg.MaxMessage)
	if err != nil {
		return err
	}
	if h.kind == kindAck {
		l.mu.Lock()
		l.acked(h)
		l.mu.Unlock()
		return nil
	}
	data := make([]byte, h.len)
	if _, err := io.ReadFull(rc.conn, data); err != nil {
		return err
	}
	if crc32.Checksum(data, castagnoli) != h.crc {
		return fmt.Errorf("%w: chunk [%d, +%d) of message %d", ErrCorrupt, h.off, h.len, h.msg)
	}
	return l.received(rc, h, data)
}

// received files a data chunk, acknowledges it on its rail, and moves
// the messages it completes to the inbox, waiting while the inbox is
// over the window.
func (l *Link) received(rc *railConn, h header, data []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	dup, err := l.asm.add(h, data)
	if err != nil {
		return err
	}
	if dup {
		l.stats.Duplicates++
	}
	ack := h
	ack.kind, ack.crc = kindAck, 0
	rc.push(job{h: ack})
	for _, m := range l.asm.ready() {
		l.inbox = append(l.inbox, m)
		l.inBytes += len(m)
	}
	l.recvCond.Broadcast()
	for l.inBytes > l.cfg.Window && l.err == nil {
		l.recvCond.Wait()
	}
	return nil
}
