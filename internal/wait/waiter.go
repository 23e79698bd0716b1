package wait

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Waiter carries one wait through the policy's phases: it counts the
// failed polls, reads the clock when the policy needs it, and says what
// to do next. Its zero value is not usable; make one with NewWaiter. A
// Waiter is owned by one goroutine.
type Waiter struct {
	p       *Policy
	n       int
	started bool
	start   time.Duration // clock at the first read
	elapsed time.Duration // since start, at the last read
	clock   func() time.Duration
}

// NewWaiter starts a wait under p, which must not change meanwhile.
func NewWaiter(p *Policy) Waiter { return Waiter{p: p} }

// newTestWaiter is NewWaiter with an injected clock.
func newTestWaiter(p *Policy, clock func() time.Duration) Waiter {
	return Waiter{p: p, clock: clock}
}

// Next counts a failed poll and returns the action it calls for, without
// doing it. Its first Flat calls only count, so that it inlines into the
// caller's poll loop.
func (w *Waiter) Next() Action {
	w.n++
	if w.n < w.p.Flat {
		return Poll
	}
	return w.next()
}

// next is Next past the flat polls: between clock reads the waiter keeps
// pausing; at a read the policy decides.
func (w *Waiter) next() Action {
	if w.started && w.elapsed < w.p.Spin && (w.p.Check <= 0 || w.n%w.p.Check != 0) {
		return Pause
	}
	now := w.now()
	if !w.started {
		w.start, w.started = now, true
	}
	w.elapsed = now - w.start
	return w.p.Decide(w.n, w.elapsed)
}

// Idle is Next, doing the pause or the yield it calls for; the caller
// does Check's checks and Sleep's sleep.
func (w *Waiter) Idle() Action {
	a := w.Next()
	switch a {
	case Pause:
		PauseFor(w.p.PauseLen(w.n))
	case Yield:
		w.Yield()
	}
	return a
}

// Restart begins the wait's phases again, as after a wake-up by the event
// waited for: the waiter spins again before it sleeps again.
func (w *Waiter) Restart() { *w = Waiter{p: w.p, clock: w.clock} }

// Polls returns how many failed polls the wait has counted.
func (w *Waiter) Polls() int { return w.n }

// Elapsed returns the time since the wait's first clock read, as of the
// last read.
func (w *Waiter) Elapsed() time.Duration { return w.elapsed }

// Policy returns the waiter's policy.
func (w *Waiter) Policy() *Policy { return w.p }

// Yield offers the CPU as the policy's Yield phase does: the thread's
// CPU under OSYield, else the goroutine's P.
func (w *Waiter) Yield() {
	if w.p.OSYield {
		OSYield()
		return
	}
	runtime.Gosched()
}

func (w *Waiter) now() time.Duration {
	if w.clock != nil {
		return w.clock()
	}
	return time.Since(epoch)
}

// epoch is the origin of Waiter's monotonic clock.
var epoch = time.Now()

// Nap sleeps for NapFor: the Sleep phase of a waiter that nobody wakes.
func Nap() { time.Sleep(NapFor) }

// sink keeps PauseFor's loop from being optimised away.
var sink atomic.Uint32

// PauseFor busy-waits for about n loop iterations without touching shared
// cache lines, so the line being polled stays with its writer meanwhile.
func PauseFor(n int) {
	x := uint32(0)
	for i := 0; i < n; i++ {
		x += uint32(i)
	}
	if x == 1 {
		sink.Store(x)
	}
}
