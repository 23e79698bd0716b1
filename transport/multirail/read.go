package multirail

import (
	"errors"
	"fmt"
	"hash/crc32"
	"net"
	"runtime"
	"syscall"
)

// Reading. A rail's socket is read by whoever holds its rmu: the rail's
// reader goroutine, or a Recv that polls the rails itself (poll.go,
// Config.Poll) so that a message costs no goroutine wake-ups. Both cut
// the stream with the rail's decoder and handle every whole frame under
// rmu, so frames are handled one at a time and in order whoever reads
// them.
//
// On a socket (sock_linux.go) the reader goroutine waits in poll(2)
// without rmu until the socket has bytes, then reads without blocking
// until it is empty; poll(2) is level-triggered, so a poller that took
// the bytes first leaves it a spurious wake-up, never a lost one. Other
// connections (the in-memory twins) are read with blocking reads under
// rmu, and never polled.

// readLoop reads the rail's frames until it fails. It runs on the rail's
// reader goroutine.
func (l *Link) readLoop(rc *railConn) {
	defer l.wg.Done()
	var err error
	if rc.sock != nil {
		err = l.readSock(rc)
	} else {
		err = l.readConn(rc)
	}
	if !errors.Is(err, net.ErrClosed) || !rc.isDown(l) {
		l.railFailed(rc.i, fmt.Errorf("multirail: rail %d: %w", rc.i, err))
	}
}

// readSock is readLoop on a socket. After a drain that read something it
// yields its P before it waits again.
func (l *Link) readSock(rc *railConn) error {
	for {
		rc.standAside()
		if err := rc.sock.waitReadable(); err != nil {
			return err
		}
		rc.rmu.Lock()
		rc.got = false
		if rc.rerr == nil {
			rc.rerr = l.drain(rc)
			l.waitInbox()
		}
		err, got := rc.rerr, rc.got
		rc.rmu.Unlock()
		if err != nil {
			return err
		}
		if got {
			// What the frames made ready (a Recv, a Send, a writer) sits in
			// this P's next slot; poll(2) below would hold the P in a
			// system call with it there until sysmon took the P back, up
			// to 10 ms when the process looks idle (docs/benchmarks.md,
			// "Rails: a reader that blocked its P"). Let it run first.
			runtime.Gosched()
		}
	}
}

// readConn is readLoop on any other connection: blocking reads.
func (l *Link) readConn(rc *railConn) error {
	rc.rmu.Lock()
	defer rc.rmu.Unlock()
	for {
		if err := l.handleBuffered(rc, false); err != nil {
			return err
		}
		n, err := rc.conn.Read(rc.dec.space())
		rc.dec.wrote(n)
		if err != nil {
			if e := l.handleBuffered(rc, false); e != nil {
				return e
			}
			return err
		}
	}
}

// drain reads the rail's socket without blocking and handles every
// whole frame, until the socket is empty (nil) or the stream ends or
// breaks (the error). A read shorter than the space it was given found the
// socket empty: drain returns then rather than spend a system call to
// hear so, since the reader waits in level-triggered poll(2) and a
// poller polls again, so bytes that came meanwhile are not lost. It
// never waits for inbox space: a poller is the one that would make it,
// and the reader goroutine waits after it (readSock). What it takes
// beyond the window is bounded by the socket's buffer. rc.rmu must be
// held.
func (l *Link) drain(rc *railConn) error {
	for {
		if err := l.handleBuffered(rc, true); err != nil {
			return err
		}
		space := rc.dec.space()
		n, err := rc.sock.read(space)
		if err != nil {
			if isErrno(err, syscall.EAGAIN) {
				return nil
			}
			return err
		}
		rc.dec.wrote(n)
		rc.got = true
		if n < len(space) {
			return l.handleBuffered(rc, true)
		}
	}
}

// isErrno reports whether err is e. A type assertion, not ==: comparing
// an error with an Errno calls the runtime's interface comparison, and a
// polling Recv meets EAGAIN at every empty poll.
func isErrno(err error, e syscall.Errno) bool {
	got, ok := err.(syscall.Errno)
	return ok && got == e
}

// handleBuffered handles the whole frames decoded so far; unless nowait
// is set, it waits for inbox space after each chunk. rc.rmu must be
// held.
func (l *Link) handleBuffered(rc *railConn, nowait bool) error {
	for {
		h, data, ok, err := rc.dec.next(l.cfg.MaxMessage)
		if err != nil || !ok {
			return err
		}
		if h.kind == kindAck {
			l.mu.Lock()
			l.acked(rc, h)
			l.mu.Unlock()
			continue
		}
		if crc32.Checksum(data, castagnoli) != h.crc {
			return fmt.Errorf("%w: chunk [%d, +%d) of message %d", ErrCorrupt, h.off, h.len, h.msg)
		}
		if err := l.received(rc, h, data); err != nil {
			return err
		}
		if !nowait {
			l.waitInbox()
		}
	}
}

// received files a data chunk, queues its acknowledgement for the
// rail's writer, and moves the messages it completes to the inbox. The
// acknowledgement of a small whole message is lazy: it leaves with the
// next write on the rail (the answer to it, often) or after ackDelay, so
// that a message costs its receiver no write of its own. Readers never
// write themselves: a reader blocked in a write while its peer's reader
// is blocked in one too would hold both rails' acknowledgements.
func (l *Link) received(rc *railConn, h header, data []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	dup, kept, err := l.asm.add(h, data)
	if err != nil {
		return err
	}
	if dup {
		l.stats.Duplicates++
	}
	if !kept {
		l.rbufs.put(data) // copied into its message, or a duplicate
	}
	rc.push(job{h: ackOf(h)}, !l.eager(h))
	n := len(l.inbox.items)
	l.inbox.items = l.asm.ready(l.inbox.items)
	for _, m := range l.inbox.items[n:] {
		l.inBytes += len(m)
	}
	l.ready.Store(int32(l.inbox.len()))
	l.recvCond.Broadcast()
	return nil
}

// ackOf is the acknowledgement of data chunk h.
func ackOf(h header) header {
	h.kind, h.crc = kindAck, 0
	return h
}

// waitInbox waits while the inbox is over the window: the rail's reader
// stops reading, and its peer's writes stop at the socket's buffer.
func (l *Link) waitInbox() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waitInboxLocked()
}

func (l *Link) waitInboxLocked() {
	for l.inBytes > l.cfg.Window && l.err == nil {
		l.recvCond.Wait()
	}
}

// eager reports whether h is the one chunk of a message small enough to
// go whole without waiting for its acknowledgement (Config.Eager).
func (l *Link) eager(h header) bool {
	return h.whole() && h.total <= uint64(l.cfg.Eager)
}

func (rc *railConn) isDown(l *Link) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return rc.down || l.err != nil
}
