package group

import (
	"sync/atomic"
	"time"
)

// Load is how a replica on a Team spent its time: Run is how long its
// loop has run, Busy how much of that it had work (a frame, a call, a
// tick or a send that waited), from the sweep that found work to the
// first sweep that found none. Busy divided by the decisions made in a
// window is the replica's cost per decision: at the acceptor, what
// bounds a group's throughput when nothing else does.
type Load struct {
	Run, Busy time.Duration
}

// Sub returns l minus an earlier reading e: the load between the two.
func (l Load) Sub(e Load) Load { return Load{Run: l.Run - e.Run, Busy: l.Busy - e.Busy} }

// loadClock accounts a replica's busy time. The replica's goroutine
// stores; Load may read from any goroutine, so the totals are atomic.
// Each change between busy and idle costs one clock read.
type loadClock struct {
	began     time.Time
	busySince time.Time // zero while idle
	busyNs    atomic.Int64
	beganNs   atomic.Int64 // began as Unix nanoseconds, 0 before Run
}

func (c *loadClock) start(now time.Time) {
	c.began = now
	c.beganNs.Store(now.UnixNano())
}

// busy notes a sweep that found work; now is read only when the replica
// was idle.
func (c *loadClock) busy(now func() time.Time) {
	if c.busySince.IsZero() {
		c.busySince = now()
	}
}

// idle notes a sweep that found nothing; now is read only when the
// replica was busy.
func (c *loadClock) idle(now func() time.Time) {
	if !c.busySince.IsZero() {
		c.busyNs.Add(int64(now().Sub(c.busySince)))
		c.busySince = time.Time{}
	}
}

// Load returns the replica's load so far (zero for a replica that is not
// on a Team or has not run). It may be called from any goroutine.
func (r *Replica) Load() Load {
	b := r.load.beganNs.Load()
	if b == 0 {
		return Load{}
	}
	return Load{Run: time.Since(time.Unix(0, b)), Busy: time.Duration(r.load.busyNs.Load())}
}
