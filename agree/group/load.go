package group

import (
	"sync/atomic"
	"time"
)

// Load is how a replica on a Team spent its time: Run is how long its
// loop has run, Busy how much of that it had work (a frame, a call, a
// tick or a send that waited), from the start of the sweep that found
// work to the end of the first sweep that found none. Busy divided by
// the decisions made in a window is the replica's cost per decision: at
// the acceptor, what bounds a group's throughput when nothing else does.
//
// Sleeps counts the times the loop blocked, idle, until a sender, a call
// or a tick woke it: a replica woken through Go's scheduler may wait for
// a P, so sleeps under load are a cost to look for.
type Load struct {
	Run, Busy time.Duration
	Sleeps    int64
}

// Sub returns l minus an earlier reading e: the load between the two.
func (l Load) Sub(e Load) Load {
	return Load{Run: l.Run - e.Run, Busy: l.Busy - e.Busy, Sleeps: l.Sleeps - e.Sleeps}
}

// loadClock accounts a replica's busy time. The replica's goroutine
// calls its methods; Load may read from any goroutine, so the totals are
// atomic. It reads the clock (monotonic, since the clock was made) at
// the start of every sweep while the replica is idle, so that a busy
// span counts the sweep that found the work, and once at its end: a
// replica that is busy does not pay for a read per sweep.
type loadClock struct {
	clock     func() time.Duration
	started   time.Duration // start of the current sweep, read while idle
	busySince time.Duration // -1 while idle
	busyNs    atomic.Int64
	beganNs   atomic.Int64 // the loop's start as Unix nanoseconds, 0 before Run
	sleeps    atomic.Int64
}

// start begins the accounting at now, idle, with clock as its clock.
func (c *loadClock) start(now time.Time, clock func() time.Duration) {
	c.clock, c.busySince = clock, -1
	c.beganNs.Store(now.UnixNano())
}

// sweep notes the start of a sweep; the clock is read only while idle.
func (c *loadClock) sweep() {
	if c.busySince < 0 {
		c.started = c.clock()
	}
}

// busy notes that the sweep found work: a busy span starts with it
// unless one is running.
func (c *loadClock) busy() {
	if c.busySince < 0 {
		c.busySince = c.started
	}
}

// idle notes a sweep that found nothing: it ends the busy span, if any,
// with a clock read.
func (c *loadClock) idle() {
	if c.busySince >= 0 {
		c.busyNs.Add(int64(c.clock() - c.busySince))
		c.busySince = -1
	}
}

// Load returns the replica's load so far (zero for a replica that is not
// on a Team or has not run). It may be called from any goroutine.
func (r *Replica) Load() Load {
	b := r.load.beganNs.Load()
	if b == 0 {
		return Load{}
	}
	return Load{Run: time.Since(time.Unix(0, b)), Busy: time.Duration(r.load.busyNs.Load()), Sleeps: r.load.sleeps.Load()}
}
