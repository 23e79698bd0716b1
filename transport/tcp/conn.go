package tcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

const (
	readBufSize  = 64 << 10
	writeBufSize = 64 << 10
	sockBufSize  = 4 << 20
	// closeLinger bounds how long Close waits for a peer to take the last
	// frames and the Bye.
	closeLinger = time.Second
)

// conn is one authenticated connection to a peer. Whoever holds rmu reads
// the socket (see reader.go) and whoever holds wmu writes it (see
// write.go); fail may be called by anyone, once wins.
type conn struct {
	e    *Endpoint
	peer int
	nc   net.Conn // the handshake's; after start only sk reaches the socket
	rc   syscall.RawConn
	q    *sendQueue
	// smu guards sk and aborted: start may replace sk by a detached
	// socket, unless fail came first (sock.go).
	smu     sync.Mutex
	sk      sock
	aborted bool
	// dialled is true if this side dialled; set before c is shared.
	dialled bool

	// rmu guards fr and rerr: the right to read the socket and deliver.
	rmu  sync.Mutex
	fr   *frameReader
	rerr error // why reading stopped; once set, nothing more is read
	// polled is when Poll last came, in ns since epoch (0: never, or
	// PollDone since); resume wakes a reader standing aside (poll.go).
	polled atomic.Int64
	resume chan struct{}

	// wmu guards bw, wbuf and wrote: the right to write to the socket. The
	// queue's frames are taken only under wmu, and bw is flushed before
	// wmu is released, so a direct write never overtakes queued bytes.
	wmu   chanLock
	bw    *bufio.Writer
	wbuf  []byte
	wrote time.Time // when the last direct write ended
	w     writeState
	// writeFn, pollFn and flushFn are c.writeSome, c.pollSome and
	// c.flushSome, bound once.
	writeFn func(uintptr) bool
	pollFn  func(uintptr)
	flushFn func(uintptr)
	// flushed and flushIov are flushQueued's frames and vector (wmu);
	// spare is the writer's array to give the queue in exchange (wmu).
	spare    []*frameBuf
	flushed  []*frameBuf
	flushIov [][]byte

	// recv counts frames read; readers add, the heartbeat reads.
	recv atomic.Uint64
	// seen and silent belong to the heartbeat goroutine alone.
	seen   uint64
	silent time.Duration

	failOnce sync.Once
	err      error // why c ended; written once, in fail
}

// newConn wraps nc, a TCP connection that has passed its handshake; dec
// is the handshake's decoder, whose buffered bytes are the first frames.
func newConn(e *Endpoint, peer int, nc net.Conn, dec *decoder) *conn {
	pending, _ := dec.r.Peek(dec.r.Buffered())
	c := &conn{e: e, peer: peer, nc: nc, q: newSendQueue(e.cfg.QueueBytes), resume: make(chan struct{}, 1), wmu: newChanLock(),
		fr: newFrameReader(readBufSize, e.cfg.MaxPayload, pending)}
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetReadBuffer(sockBufSize)
		tc.SetWriteBuffer(sockBufSize)
	}
	c.rc, c.rerr = sysConn(nc)
	if e.cfg.UserTimeout > 0 && c.rerr == nil {
		setUserTimeout(c.rc, e.cfg.UserTimeout)
	}
	c.sk = netSock{nc: nc, rc: c.rc}
	c.writeFn, c.pollFn, c.flushFn = c.writeSome, c.pollSome, c.flushSome
	// Until start, the handshake may still be using nc: nobody else may
	// read or write it, and frames sent meanwhile wait in the queue.
	c.rmu.Lock()
	c.wmu.Lock()
	return c
}

// sysConn returns nc's descriptor access, for the non-blocking reads and
// writes.
func sysConn(nc net.Conn) (syscall.RawConn, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("tcp: %T has no file descriptor", nc)
	}
	return sc.SyscallConn()
}

// start takes the socket out of the netpoller if it can (sock_linux.go),
// runs the reader and writer goroutines and opens the socket to Poll and
// direct writes.
func (c *conn) start() {
	c.smu.Lock()
	if !c.aborted && c.rerr == nil && c.e.detachLeft.Add(-1) >= 0 {
		if sk, ok := detach(c.nc, c.rc); ok {
			c.sk = sk
			if c.e.closing.Load() {
				sk.setDeadline(time.Now().Add(closeLinger)) // shutdown's, set on nc
			}
		}
	}
	c.smu.Unlock()
	c.bw = bufio.NewWriterSize(&countingWriter{w: c.sk, n: &c.e.writes}, writeBufSize)
	c.rmu.Unlock()
	c.wmu.Unlock()
	c.e.wg.Add(2)
	go c.readLoop()
	go c.writeLoop()
}

// queue encodes a frame and queues it for the writer.
func (c *conn) queue(ctx context.Context, h frame.Header, payload []byte) error {
	f := getFrame(headerSize + len(payload))
	f.b = appendFrame(f.b, h, payload)
	if err := c.q.push(ctx, f); err != nil {
		putFrame(f)
		return err
	}
	return nil
}

// writeLoop writes what is queued whenever the doorbell rings. It drains
// the queue into one buffered writer and flushes only when the queue is
// empty, so frames that many goroutines queued while the previous write
// was in the kernel leave in one write.
func (c *conn) writeLoop() {
	defer c.e.wg.Done()
	defer c.sk.release()
	for {
		c.q.wait()
		c.wmu.Lock()
		done, err := c.writeQueued()
		c.wmu.Unlock()
		if err != nil {
			c.fail(fmt.Errorf("writing to rank %d: %w", c.peer, err))
			return
		}
		if done {
			c.finish()
			return
		}
	}
}

// writeQueued writes and flushes everything queued and reports whether
// the queue is closed and empty. c.wmu must be held.
func (c *conn) writeQueued() (done bool, err error) {
	for {
		frames, closed := c.q.take(c.spare[:0])
		if len(frames) == 0 {
			return closed, c.bw.Flush()
		}
		if err := c.writeBatch(frames); err != nil {
			return false, err
		}
		c.spare = frames // the queue's next array, so admit does not allocate
	}
}

func (c *conn) writeBatch(frames []*frameBuf) error {
	var err error
	for i, f := range frames {
		if err == nil {
			_, err = c.bw.Write(f.b)
		}
		putFrame(f)
		frames[i] = nil
	}
	c.e.frames.Add(uint64(len(frames)))
	return err
}

// finish runs when the queue is closed, drained and flushed: after a
// local Close the last frames and the Bye are out, and it half-closes, so the peer reads everything and
// then EOF; the reader closes the socket when the peer hangs up. After a
// failure the socket is already closed and the flush fails harmlessly.
func (c *conn) finish() { c.sk.closeWrite() }

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
	c.sock().setDeadline(time.Now().Add(closeLinger))
	bye := getFrame(headerSize)
	bye.b = appendFrame(bye.b, frame.Header{Kind: frame.Bye, Source: int32(c.e.cfg.Rank)}, nil)
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
		c.smu.Lock()
		c.aborted = true
		sk := c.sk
		c.smu.Unlock()
		sk.abort()
		c.pollDone()
	})
}

// failed fails c and returns the error it failed with, for the report.
func (c *conn) failed(cause error) error {
	c.fail(cause)
	return c.err // written inside failOnce, which orders it before this read
}

// sock returns the connection's current socket.
func (c *conn) sock() sock {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.sk
}
