package tcp

import (
	"time"

	"github.com/plexus-hpc/plexus/internal/wait"
)

// Polling: a goroutine that waits for a frame reads the socket itself
// (Endpoint.Poll), so that its frame costs no goroutine wake-ups. Meanwhile
// the reader goroutine stands aside: woken by the netpoller for every
// frame it would only contend for the read lock and the CPU. It waits
// instead until no Poll came for standAside, or until PollDone says the
// poller has gone to sleep, and then reads (and waits in the netpoller)
// as usual. So a connection is never left unwatched for longer than
// standAside, even if its poller stops calling.

// standAside is how long after the last Poll the reader goroutine keeps
// out of the way: the waiting policy's (wait.StandAside).
const standAside = wait.StandAside

// epoch is the origin of the conns' poll times.
var epoch = time.Now()

// poll writes what is queued, unless another goroutine is writing
// (flush.go), then reads and delivers what has arrived, unless another
// goroutine is reading already. It reports whether it delivered a frame.
func (c *conn) poll() bool {
	c.polled.Store(int64(time.Since(epoch)))
	c.flushQueued()
	if !c.rmu.TryLock() {
		return false
	}
	defer c.rmu.Unlock()
	n := c.recv.Load()
	if c.rerr == nil {
		c.sk.control(c.pollFn)
	}
	return c.recv.Load() != n
}

// pollSome is poll's RawConn.Control callback. c.rmu must be held.
func (c *conn) pollSome(fd uintptr) {
	if err := c.drain(int(fd), true); err != errAgain {
		c.rerr = err
		c.wakeReader() // to report the peer lost, even while others poll
	}
}

// pollDone ends the reader goroutine's standing aside now.
func (c *conn) pollDone() {
	c.polled.Store(0)
	c.wakeReader()
}

// wakeReader makes the reader goroutine re-check whether it should stand
// aside.
func (c *conn) wakeReader() {
	select {
	case c.resume <- struct{}{}:
	default:
	}
}

// standingAside reports whether a Poll came within standAside.
func (c *conn) standingAside() bool {
	last := c.polled.Load()
	return last != 0 && time.Duration(int64(time.Since(epoch))-last) < standAside
}

// standAside waits until the pollers are gone or reading has stopped (a
// poller met the end of the stream, or c failed). Only the reader
// goroutine may call it.
func (c *conn) standAside() {
	if !c.standingAside() {
		return
	}
	c.sk.rest()
	t := time.NewTimer(standAside)
	defer t.Stop()
	for c.standingAside() && !c.readFailed() {
		select {
		case <-c.resume:
		case <-t.C:
			t.Reset(standAside)
		}
	}
}
