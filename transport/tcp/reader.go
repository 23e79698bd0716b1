package tcp

import (
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// Reading. A connection is read by whoever holds its read lock (rmu):
// its reader goroutine, or a caller of Endpoint.Poll that is waiting for
// a frame and would rather read it itself than pay for the goroutine
// hand-offs (a netpoller wake-up, then a wake-up of the waiter). Both
// read without blocking until the socket is empty (EAGAIN) and deliver
// every whole frame under the lock, so frames are delivered one at a
// time and in order whoever reads them.
//
// The reader goroutine waits for more bytes without the lock: in the
// netpoller, or for a detached socket (sock_linux.go) in poll(2). The
// netpoller is edge-triggered, so it must not wait unless its own last
// read, made after RawConn.Read reset the readiness, found the socket
// empty: bytes arriving after that read raise a new edge. (poll(2) is
// level-triggered and needs no such care.) A Poll that takes those bytes
// first leaves it a spurious wake-up, never a lost one. So readSome takes
// the lock with Lock, not TryLock.
//
// While some goroutine keeps polling, the reader goroutine stands aside
// (poll.go) instead of waiting in the netpoller, where it would only be
// woken to compete for the frames the poller reads.

// readLoop reads until the connection ends and at the end reports the
// peer lost. It runs on the reader goroutine.
func (c *conn) readLoop() {
	defer c.e.wg.Done()
	defer c.sk.release()
	var err error
	for err == nil && !c.readFailed() {
		c.standAside()
		err = c.sk.read(c.readSome)
	}
	c.rmu.Lock()
	if c.rerr == nil {
		c.rerr = err
	}
	err = c.rerr // after this, Poll reads and delivers nothing more
	c.rmu.Unlock()
	c.e.lost(c, c.failed(c.readError(err)))
}

// readFailed reports whether reading has stopped for good.
func (c *conn) readFailed() bool {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	return c.rerr != nil
}

// readSome is the reader goroutine's RawConn.Read callback: it reads and
// delivers until the socket is empty, then returns false to wait for
// more, or true if the connection ended (c.rerr is set) or a poller is
// active (standingAside).
func (c *conn) readSome(fd uintptr) bool {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if c.rerr != nil {
		return true
	}
	if err := c.drain(int(fd), false); err != errAgain {
		c.rerr = err
	}
	return c.rerr != nil || c.standingAside()
}

// errAgain is drain's report that the socket is empty for now.
var errAgain error = syscall.EAGAIN

// drain reads without blocking and handles every whole frame, until the
// socket is empty (errAgain) or the stream ends or breaks. c.rmu must be
// held. If short is set, a read that did not fill its space counts as
// finding the socket empty, which saves Poll a read(2) that would only
// return EAGAIN. The reader goroutine must not take that shortcut: the
// end of the stream may have arrived with the last bytes, and it raises
// no new edge for the netpoller to wake the reader with.
func (c *conn) drain(fd int, short bool) error {
	for {
		if err := c.handleBuffered(); err != nil {
			return err
		}
		space := c.fr.space()
		n, err := rawRead(fd, space)
		switch {
		case err == syscall.EINTR:
		case err != nil:
			return err
		case n == 0:
			return io.EOF
		case short && n < len(space):
			c.fr.wrote(n)
			if err := c.handleBuffered(); err != nil {
				return err
			}
			return errAgain
		default:
			c.fr.wrote(n)
		}
	}
}

// handleBuffered handles the whole frames already read. c.rmu must be held.
func (c *conn) handleBuffered() error {
	for {
		h, p, ok, err := c.fr.next()
		if err != nil || !ok {
			return err
		}
		c.recv.Add(1)
		if err := c.handle(h, p); err != nil {
			return err
		}
	}
}

// errBye is the cause recorded when a peer closes on purpose.
var errBye = errors.New("peer closed the connection (Bye)")

func (c *conn) handle(h frame.Header, p []byte) error {
	if int(h.Source) != c.peer {
		return fmt.Errorf("%w: %s frame claims source rank %d on the connection of rank %d", ErrMalformed, h.Kind, h.Source, c.peer)
	}
	switch {
	case h.Kind.User():
		if !c.e.closing.Load() {
			c.e.cfg.Deliver(c.peer, h, p)
		}
		return nil
	case h.Kind == frame.Ping:
		c.answerPing()
		return nil
	case h.Kind == frame.Bye:
		return errBye
	}
	return fmt.Errorf("%w: %s frame after the handshake", ErrMalformed, h.Kind)
}

// readError names why reading stopped. A Bye or this side's own Close is
// normal; anything else is logged, since it is why a peer was lost.
func (c *conn) readError(err error) error {
	if errors.Is(err, io.EOF) {
		err = errors.New("connection closed without Bye")
	}
	if !errors.Is(err, errBye) && !c.e.closing.Load() {
		c.e.cfg.Logger.Error("tcp: closing connection", "rank", c.e.cfg.Rank, "peer", c.peer, "err", err)
	}
	return err
}

// answerPing keeps a peer with heartbeats on from declaring this side
// silent when this side has them off and nothing else to say. It never
// waits: a full queue is proof enough of life.
func (c *conn) answerPing() {
	if c.e.cfg.Heartbeat == 0 {
		c.queuePing()
	}
}

func (c *conn) queuePing() {
	ping := getFrame(headerSize)
	ping.b = appendFrame(ping.b, frame.Header{Kind: frame.Ping, Source: int32(c.e.cfg.Rank)}, nil)
	if !c.q.tryPush(ping) {
		putFrame(ping)
	}
}

// tick is the heartbeat: it queues a Ping unless the queue is full (then
// data is flowing anyway) and fails the connection if nothing arrived for
// PeerTimeout. Only the heartbeat goroutine may call it.
func (c *conn) tick() {
	c.queuePing()
	if n := c.recv.Load(); n != c.seen {
		c.seen, c.silent = n, 0
		return
	}
	c.silent += c.e.cfg.Heartbeat
	if c.silent >= c.e.cfg.PeerTimeout {
		err := fmt.Errorf("no frame for %v (heartbeat every %v)", c.silent, c.e.cfg.Heartbeat)
		c.e.cfg.Logger.Error("tcp: closing connection", "rank", c.e.cfg.Rank, "peer", c.peer, "err", err)
		c.fail(err)
	}
}
