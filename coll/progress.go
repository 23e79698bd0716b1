package coll

import (
	"runtime"
	"time"

	"github.com/plexus-hpc/plexus/internal/wait"
)

// A member on remote links that only naps on its bell pays, on every hop,
// a wake-up of the transport's receive goroutine and then one of its own:
// tens of microseconds on a small VM, and a collective is several hops.
// When its links' transport can be moved by the waiting goroutine itself
// (Progresser), the member does the receive goroutine's work while it
// waits, for a bounded time, as comm's blocking calls do; then it naps on
// its bell as before, so that an idle rank burns no CPU.

// Progresser is implemented by links whose arrivals a waiting goroutine
// can receive and deliver itself, such as links over a transport that can
// be polled. The member's goroutine, and at the root any goroutine in
// Broadcast, may call it; an implementation is safe for concurrent use.
//
// Progress receives and delivers, once and without blocking, what has
// arrived for any of the member's links, and reports whether it delivered
// anything; ok is false when it cannot progress now (another goroutine is
// doing it, say), and the caller waits otherwise. ProgressDone says the
// caller stops progressing and is going to nap, so the transport should
// watch the links itself again.
type Progresser interface {
	Progress() (delivered, ok bool)
	ProgressDone()
}

// ProgressSleeper is a Progresser whose arrivals come only from Progress
// calls, when MustProgress says so (the links of a serialized comm world,
// which receives only inside its caller's calls): nobody else delivers,
// so nobody would ring the bell. A wait on such links never stops
// progressing them; once its budget is spent it naps between empty
// Progress calls with ProgressSleep, which returns when something may
// have arrived, or after a bounded nap.
type ProgressSleeper interface {
	Progresser
	MustProgress() bool
	ProgressSleep()
}

// progressFor bounds how long one wait progresses the transport before it
// naps: the spin budget of pollers (wait.Poller), which comm's blocking
// calls use too, for the same reason. Progressing keeps a CPU busy, which
// an idle rank must not.
var progressFor = wait.Poller.Spin

// ScopedProgresser is a Progresser whose transport is several, each
// reaching some of the peers (shared memory on this host and TCP to
// others, say): ProgressScope names, as bits, the transports that reach
// the link's peer, and ProgressIn progresses the transports of a scope
// alone. A member waits on the union of its links' scopes, so that it
// does not pay for polling transports none of its links use.
type ScopedProgresser interface {
	Progresser
	ProgressScope() uint
	ProgressIn(scope uint) (delivered, ok bool)
}

// progresser returns the first of ends whose link is a Progresser, or
// nil; for a ScopedProgresser, one that progresses the union of the
// scopes of ends' links (every transport if any link is not scoped).
func progresser(ends []end) Progresser {
	for i, e := range ends {
		p, ok := e.Link.(Progresser)
		if !ok {
			continue
		}
		sp, ok := p.(ScopedProgresser)
		if !ok {
			return p
		}
		scope := sp.ProgressScope()
		for _, o := range ends[i+1:] {
			if os, ok := o.Link.(ScopedProgresser); ok {
				scope |= os.ProgressScope()
			} else {
				scope = ^uint(0)
			}
		}
		return scoped{sp, scope}
	}
	return nil
}

// scoped progresses a ScopedProgresser's transports of one scope.
type scoped struct {
	p     ScopedProgresser
	scope uint
}

func (s scoped) Progress() (delivered, ok bool) { return s.p.ProgressIn(s.scope) }
func (s scoped) ProgressDone()                  { s.p.ProgressDone() }
func (s scoped) MustProgress() bool             { return mustProgress(s.p) }
func (s scoped) ProgressSleep()                 { s.p.(ProgressSleeper).ProgressSleep() }

// progress moves the wait's transport once, if it has one, and reports
// whether it did. It reports false from the first call that cannot, and
// from the first call after progressFor, after telling the transport
// (ProgressDone); the wait then polls and naps as it would without. The
// clock is read, and the CPU yielded, only every progressCheck calls:
// either costs more than an empty poll, and whatever the wait is doing
// when the message lands delays it.
func (s *spinner) progress() bool {
	if s.n%progressCheck == 0 && s.n > 0 {
		if s.since.IsZero() {
			s.since = time.Now() // not earlier: most waits end before
		} else if !s.drowsy && time.Since(s.since) > progressFor {
			if !mustProgress(s.prog) {
				s.stopProgress()
				return false
			}
			s.drowsy = true // from now on nap between empty polls
		}
		// Goroutines this one made ready (the transport's writer, a
		// credit's sender) may wait in this P's queue; let them run.
		runtime.Gosched()
	}
	delivered, ok := s.prog.Progress()
	if !ok {
		s.stopProgress()
		return false
	}
	if s.drowsy && !delivered {
		s.prog.(ProgressSleeper).ProgressSleep()
	}
	s.progressed = true
	return true
}

// mustProgress reports whether p is a ProgressSleeper that must be
// progressed to the end of the wait.
func mustProgress(p Progresser) bool {
	ps, ok := p.(ProgressSleeper)
	return ok && ps.MustProgress()
}

// progressCheck is how many progress calls a wait makes between looks at
// the clock and yields: the pollers' policy's check.
var progressCheck = wait.Poller.Check

// stopProgress ends the wait's progressing, telling the transport if the
// wait moved it.
func (s *spinner) stopProgress() {
	if s.progressed {
		s.prog.ProgressDone()
	}
	s.prog = nil
}
