package tcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

const (
	readBufSize  = 64 << 10
	writeBufSize = 64 << 10
	// closeLinger bounds how long Close waits for a peer to take the last
	// frames and the Bye.
	closeLinger = time.Second
)

// conn is one authenticated connection to a peer. Send goroutines push to
// its queue; its writer goroutine alone writes to the socket and its reader
// goroutine alone reads; fail may be called by any of them, once wins.
type conn struct {
	e    *Endpoint
	peer int
	nc   net.Conn
	dec  *Decoder
	q    *sendQueue
	// dialled is true if this side dialled; set before c is shared.
	dialled bool

	// recv counts frames read; the reader adds, the heartbeat reads.
	recv atomic.Uint64
	// seen and silent belong to the heartbeat goroutine alone.
	seen   uint64
	silent time.Duration

	failOnce sync.Once
	err      error // why c ended; written once, in fail
}

func newConn(e *Endpoint, peer int, nc net.Conn, dec *Decoder) *conn {
	dec.MaxPayload = e.cfg.MaxPayload
	return &conn{e: e, peer: peer, nc: nc, dec: dec, q: newSendQueue(e.cfg.QueueBytes)}
}

// start runs the reader and writer goroutines.
func (c *conn) start() {
	c.e.wg.Add(2)
	go c.readLoop()
	go c.writeLoop()
}

// send encodes a frame and queues it for the writer.
func (c *conn) send(ctx context.Context, h Header, payload []byte) error {
	f := getFrame(HeaderSize + len(payload))
	f.b = AppendFrame(f.b, h, payload)
	if err := c.q.push(ctx, f); err != nil {
		putFrame(f)
		return err
	}
	return nil
}

// writeLoop drains the queue into one buffered writer and flushes only
// when the queue is empty, so frames that many goroutines queued while the
// previous write was in the kernel leave in one write.
func (c *conn) writeLoop() {
	defer c.e.wg.Done()
	cw := &countingWriter{w: c.nc, n: &c.e.writes}
	bw := bufio.NewWriterSize(cw, writeBufSize)
	var batch []*frameBuf
	for {
		frames, ok := c.q.take(batch)
		if !ok {
			c.finish(bw)
			return
		}
		if err := c.writeBatch(bw, frames); err != nil {
			c.fail(fmt.Errorf("writing to rank %d: %w", c.peer, err))
			return
		}
		batch = frames
	}
}

func (c *conn) writeBatch(bw *bufio.Writer, frames []*frameBuf) error {
	var err error
	for i, f := range frames {
		if err == nil {
			_, err = bw.Write(f.b)
		}
		putFrame(f)
		frames[i] = nil
	}
	c.e.frames.Add(uint64(len(frames)))
	if err == nil && c.q.empty() {
		err = bw.Flush()
	}
	return err
}

// finish runs when the queue is closed and drained: after a local Close it
// sends the last frames and half-closes, so the peer reads everything and
// then EOF; the reader closes the socket when the peer hangs up. After a
// failure the socket is already closed and the flush fails harmlessly.
func (c *conn) finish(bw *bufio.Writer) {
	if err := bw.Flush(); err != nil {
		c.fail(fmt.Errorf("writing to rank %d: %w", c.peer, err))
		return
	}
	if tc, ok := c.nc.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
		return
	}
	c.nc.Close()
}

// countingWriter counts the writes that reach the socket, one system call
// each (at least), to measure write combining.
type countingWriter struct {
	w io.Writer
	n *atomic.Uint64
}

func (cw *countingWriter) Write(p []byte) (int, error) {
	cw.n.Add(1)
	return cw.w.Write(p)
}

// shutdown starts a graceful close for Endpoint.Close: the queued frames
// and a Bye go out, then the write side closes; the deadlines bound how
// long a peer that does not read can delay it.
func (c *conn) shutdown() {
	deadline := time.Now().Add(closeLinger)
	c.nc.SetDeadline(deadline)
	bye := getFrame(HeaderSize)
	bye.b = AppendFrame(bye.b, Header{Kind: Bye, Source: int32(c.e.cfg.Rank)}, nil)
	c.q.close(ErrClosed, bye)
}

// fail ends the connection with cause: the socket closes, and pending and
// later sends fail. Any goroutine may call it; only the first call counts.
// The peer is reported lost by the reader once it stops, so that Lost
// follows the last Deliver.
func (c *conn) fail(cause error) {
	c.failOnce.Do(func() {
		c.err = ErrClosed
		if !c.e.closing.Load() {
			c.err = fmt.Errorf("%w: rank %d: %w", ErrPeerLost, c.peer, cause)
		}
		c.q.close(c.err, nil)
		c.nc.Close()
	})
}

// failed fails c and returns the error it failed with, for the report.
func (c *conn) failed(cause error) error {
	c.fail(cause)
	return c.err // written inside failOnce, which orders it before this read
}
