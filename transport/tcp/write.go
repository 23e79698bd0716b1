package tcp

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// Writing. A Send to an idle connection — nothing queued, nobody writing —
// writes its frame itself, without waking the writer goroutine: on a
// small VM each goroutine hand-off costs microseconds, as much as the
// write. Under contention (wmu taken, or frames queued) frames go to the
// queue, where the writer combines them, so one goroutine's frames still
// leave in order. A goroutine that sends again within burstGap of its
// last direct write is streaming; its frames too go to the queue, where
// they share system calls.

const (
	// copyLimit is the largest payload copied next to its header for one
	// write(2); longer ones go out with writev(2), without a copy.
	copyLimit = 4 << 10
	// writeWait is how long one wait for socket space lasts before the
	// writer checks ctx and the connection again.
	writeWait = 10 // milliseconds
	// burstGap is the pause after a direct write below which the next
	// frame counts as part of a burst. A ping-pong's sends are a round
	// trip apart (tens of microseconds); a loop of Sends follows its last
	// write at once.
	burstGap = 2 * time.Microsecond
)

// send writes the frame now if the connection is idle, else queues it. A
// long payload waits (while ctx lasts) for a direct writer before it, since
// queueing would cost a copy of it.
func (c *conn) send(ctx context.Context, h frame.Header, payload []byte) error {
	if len(payload) > copyLimit {
		if err := c.wmu.LockCtx(ctx); err != nil {
			return err
		}
		if c.q.idle() {
			return c.writeNow(ctx, h, payload)
		}
		c.wmu.Unlock()
		return c.queue(ctx, h, payload)
	}
	if c.wmu.TryLock() {
		if c.q.idle() && time.Since(c.wrote) > burstGap {
			return c.writeNow(ctx, h, payload)
		}
		c.wmu.Unlock()
	}
	return c.queue(ctx, h, payload)
}

// writeNow writes one frame directly. It waits for socket space while ctx
// lasts; if ctx ends (or the Endpoint closes) inside the frame, the rest
// is copied to the front of the queue for the writer, and the frame
// counts as sent. c.wmu must be held; writeNow releases it.
func (c *conn) writeNow(ctx context.Context, h frame.Header, payload []byte) error {
	defer c.wmu.Unlock()
	iov := [2][]byte{}
	if len(payload) <= copyLimit {
		c.wbuf = appendFrame(c.wbuf[:0], h, payload)
		iov[0] = c.wbuf
	} else {
		c.wbuf = appendHeader(c.wbuf[:0], h, len(payload))
		iov[0], iov[1] = c.wbuf, payload
	}
	sent, err := c.writeIov(ctx, iov[:])
	c.wrote = time.Now()
	c.e.frames.Add(1)
	switch {
	case err != nil:
		return c.failed(fmt.Errorf("writing to rank %d: %w", c.peer, err))
	case sent == 0 && ctx.Err() != nil:
		return ctx.Err()
	case sent < len(iov[0])+len(iov[1]):
		c.q.pushFront(rest(iov[:], sent))
	}
	return nil
}

// writeIov writes the buffers and returns how many bytes went out; it
// stops early, without error, when ctx ends or the queue closes while the
// socket is full. c.wmu must be held.
func (c *conn) writeIov(ctx context.Context, iov [][]byte) (int, error) {
	c.w = writeState{ctx: ctx, iov: iov}
	err := c.sk.write(c.writeFn)
	sent, werr := c.w.sent, c.w.err
	c.w = writeState{}
	return sent, cmpOrErr(err, werr)
}

// writeState is the argument and result of writeSome, kept in the conn
// so that the RawConn callback is a method value made once.
type writeState struct {
	ctx  context.Context
	iov  [][]byte
	sent int
	err  error
}

// writeSome is writeIov's RawConn.Write callback.
func (c *conn) writeSome(fd uintptr) bool {
	w := &c.w
	total := len(w.iov[0]) + len(w.iov[1])
	for w.sent < total && w.err == nil {
		n, err := writeFrom(int(fd), w.iov, w.sent)
		c.e.writes.Add(1)
		switch {
		case err == syscall.EAGAIN:
			if w.ctx.Err() != nil || !c.q.open() {
				return true
			}
			waitWritable(int(fd))
		case err == syscall.EINTR:
		case err != nil:
			w.err = err
		default:
			w.sent += n
		}
	}
	return true
}

// writeFrom writes iov[0] ‖ iov[1] from byte off on.
func writeFrom(fd int, iov [][]byte, off int) (int, error) {
	if off >= len(iov[0]) {
		return rawWrite(fd, iov[1][off-len(iov[0]):])
	}
	if len(iov[1]) == 0 {
		return rawWrite(fd, iov[0][off:])
	}
	return writev(fd, [][]byte{iov[0][off:], iov[1]})
}

// skip returns iov without its first n bytes.
func skip(iov [][]byte, n int) [][]byte {
	for len(iov) > 0 && n >= len(iov[0]) {
		n -= len(iov[0])
		iov = iov[1:]
	}
	if len(iov) == 0 {
		return nil
	}
	out := append([][]byte{iov[0][n:]}, iov[1:]...)
	if len(out[len(out)-1]) == 0 {
		out = out[:len(out)-1]
	}
	return out
}

// rest copies what is left of iov after n bytes into a queued frame.
func rest(iov [][]byte, n int) *frameBuf {
	var size int
	left := skip(iov, n)
	for _, b := range left {
		size += len(b)
	}
	f := getFrame(size)
	for _, b := range left {
		f.b = append(f.b, b...)
	}
	return f
}

// chanLock is a mutex whose Lock can give up when a context ends. Any
// goroutine may unlock it, as with sync.Mutex.
type chanLock chan struct{}

func newChanLock() chanLock { return make(chanLock, 1) }

// Lock waits for the lock.
func (l chanLock) Lock() { l <- struct{}{} }

// LockCtx waits for the lock until ctx ends, and then returns ctx.Err().
func (l chanLock) LockCtx(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TryLock takes the lock if it is free and reports whether it did.
func (l chanLock) TryLock() bool {
	select {
	case l <- struct{}{}:
		return true
	default:
		return false
	}
}

// Unlock releases the lock.
func (l chanLock) Unlock() { <-l }
