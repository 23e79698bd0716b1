package tcp

import (
	"errors"
	"fmt"
	"io"
)

// readLoop decodes frames until the connection ends, hands the comm
// layer's frames to Deliver, and at the end reports the peer lost. It is
// the only reader of c.nc and c.dec.
func (c *conn) readLoop() {
	defer c.e.wg.Done()
	c.e.lost(c, c.failed(c.read()))
}

// read delivers frames until an error, which it returns.
func (c *conn) read() error {
	for {
		h, p, err := c.dec.Next()
		if err == nil {
			c.recv.Add(1)
			err = c.handle(h, p)
		}
		if err != nil {
			return c.readError(err)
		}
	}
}

// errBye is the cause recorded when a peer closes on purpose.
var errBye = errors.New("peer closed the connection (Bye)")

func (c *conn) handle(h Header, p []byte) error {
	if int(h.Source) != c.peer {
		return fmt.Errorf("%w: %s frame claims source rank %d on the connection of rank %d", ErrMalformed, h.Kind, h.Source, c.peer)
	}
	switch {
	case h.Kind.userKind():
		if !c.e.closing.Load() {
			c.e.cfg.Deliver(c.peer, h, p)
		}
		return nil
	case h.Kind == Ping:
		c.answerPing()
		return nil
	case h.Kind == Bye:
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
		c.e.cfg.Log("tcp: rank %d: closing connection to rank %d: %v", c.e.cfg.Rank, c.peer, err)
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
	ping := getFrame(HeaderSize)
	ping.b = AppendFrame(ping.b, Header{Kind: Ping, Source: int32(c.e.cfg.Rank)}, nil)
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
		c.e.cfg.Log("tcp: rank %d: closing connection to rank %d: %v", c.e.cfg.Rank, c.peer, err)
		c.fail(err)
	}
}
