package tcp

import (
	"fmt"
	"syscall"
)

// Flushing on Poll. Queued frames wait for the connection's writer
// goroutine, whose wake-up on a small machine can take longer than the
// write itself. A goroutine that polls a connection is about to wait,
// often for the answer to what it has just queued (a window of Isends,
// then the wait for its acknowledgement), so Poll first writes what is
// queued, itself, if the write lock is free: with one writev(2) and
// without waiting for socket space. What does not fit goes back to the
// front of the queue, whose doorbell has rung already, and the writer
// goroutine sends it as usual, after anything written here.

// maxFlushIov bounds the frames one flush writes (IOV_MAX is 1024).
const maxFlushIov = 256

// flushQueued writes the queued frames that the socket takes at once,
// unless another goroutine holds the write lock or nothing is queued.
// It never waits.
func (c *conn) flushQueued() {
	if !c.q.pending() || !c.wmu.TryLock() {
		return
	}
	defer c.wmu.Unlock()
	frames, _ := c.q.take(c.flushed[:0])
	if len(frames) == 0 {
		return
	}
	c.flushed = frames
	c.sk.control(c.flushFn)
}

// flushSome is flushQueued's control callback: it writes c.flushed and
// puts back what the socket did not take. c.wmu must be held.
func (c *conn) flushSome(fd uintptr) {
	frames := c.flushed
	iov := c.flushIov[:0]
	for _, f := range frames[:min(len(frames), maxFlushIov)] {
		iov = append(iov, f.b)
	}
	c.flushIov = iov[:0]
	n, err := writev(int(fd), iov)
	for err == syscall.EINTR {
		n, err = writev(int(fd), iov)
	}
	c.e.writes.Add(1)
	if err != nil && err != syscall.EAGAIN {
		for _, f := range frames {
			putFrame(f)
		}
		c.fail(fmt.Errorf("writing to rank %d: %w", c.peer, err))
		return
	}
	done := sentFrames(frames, max(n, 0))
	c.e.frames.Add(uint64(done))
	if done < len(frames) {
		c.q.pushFrontAll(frames[done:])
	}
	clear(frames)
}

// sentFrames returns the buffers of the first frames that n written bytes
// cover to the pool and cuts the written part off the next one; it
// returns how many frames went out whole.
func sentFrames(frames []*frameBuf, n int) int {
	done := 0
	for _, f := range frames {
		if n < len(f.b) {
			f.b = f.b[n:]
			break
		}
		n -= len(f.b)
		putFrame(f)
		done++
	}
	return done
}
