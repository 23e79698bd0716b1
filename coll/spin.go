package coll

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

// The waiting policy of every poll loop in the package. A hand-off between
// spinning CPUs takes tens of nanoseconds and one through the scheduler
// tens of microseconds, so waiters first poll flat out, then poll with
// short pauses until their spin budget is spent, then give their CPU to
// whoever else is runnable (a peer sharing it when members outnumber
// CPUs), and finally nap so that an idle team does not burn whole CPUs.
//
// The budget depends on the team: a pinned goroutine owns its thread, and
// runtime.Gosched on a locked thread parks that thread in the kernel, so
// pinned members spin long (as the rings do); unpinned members, which may
// share a CPU with the peer they wait for, yield early.
//
// internal/baseline/atomic.go copies this policy for its atomic barrier, so that the
// benchmarks compare barriers rather than waiting policies; change both.
const (
	flatPolls   = 64      // polls without pause or checks
	maxPause    = 64      // longest pause between polls, in loop iterations
	checkEvery  = 64      // polls between cancellation checks while pausing
	pinnedSpins = 1 << 14 // spin budget of pinned members
	sharedSpins = 1 << 8  // spin budget of unpinned members and twin links
	yieldPolls  = 1 << 8  // polls with runtime.Gosched before napping
	nap         = 50 * time.Microsecond
)

// spinBudget returns the spin budget for one of n waiters: long when
// they own their CPUs, short when some must share one and a spinning
// waiter would only delay the peer it waits for.
func spinBudget(n int, pinned bool) int {
	if pinned && n <= runtime.GOMAXPROCS(0) {
		return pinnedSpins
	}
	return sharedSpins
}

// spinner counts one wait's polls and applies the policy. Its zero value
// starts a wait with the unpinned budget. It is owned by one goroutine.
type spinner struct {
	n, spins int
	bell     <-chan struct{} // when set, napping waits on it (see bell.go)

	prog       Progresser // when set, polls progress it first (see progress.go)
	since      time.Time  // the first progress check (progress.go)
	progressed bool       // prog has moved the transport
	drowsy     bool       // prog must be progressed, and the budget is spent
	// every, when above 1, has only every every-th idle poll progress
	// prog: a wait for a signal that the transport does not deliver
	// (shared counters) polls the signal in between.
	every int
}

// idle is called after a poll that found nothing. It reports whether the
// caller should check for cancellation now.
func (s *spinner) idle() bool {
	s.n++
	if s.spins == 0 {
		s.spins = sharedSpins
	}
	if s.prog != nil {
		if s.every > 1 && s.n%s.every != 0 {
			return false
		}
		if s.progress() {
			return s.n%checkEvery == 0
		}
	}
	switch {
	case s.n < flatPolls:
		return false
	case s.bell != nil:
		// Remote links take microseconds, and spinning would take the
		// CPU from the threads (ours or the peer rank's) that deliver.
		s.napOnce()
	case s.n < s.spins:
		pause(min(s.n-flatPolls+1, maxPause))
		return s.n%checkEvery == 0
	case s.n < s.spins+yieldPolls:
		runtime.Gosched()
	default:
		s.napOnce()
	}
	return true
}

// napOnce sleeps, or waits for the bell when there is one.
func (s *spinner) napOnce() {
	if s.bell == nil {
		time.Sleep(nap)
		return
	}
	t := time.NewTimer(bellWait)
	select {
	case <-s.bell:
	case <-t.C:
	}
	t.Stop()
}

// sink keeps pause's loop from being optimised away.
var sink atomic.Uint32

// pause busy-waits for about n loop iterations without touching shared
// cache lines, so the line being polled stays with its writer meanwhile.
func pause(n int) {
	x := uint32(0)
	for i := 0; i < n; i++ {
		x += uint32(i)
	}
	if x == 1 {
		sink.Store(x)
	}
}

// waitCtx is the policy for waiters outside a team (twin links): it
// returns ctx.Err() once ctx ends.
func (s *spinner) waitCtx(ctx context.Context) error {
	if s.idle() {
		return ctx.Err()
	}
	return nil
}

// spinLock is a test-and-test-and-set lock for short critical sections on
// the fast path, where a blocking mutex's hand-off would cost far more
// than the section. Any goroutine may lock; the holder must unlock.
type spinLock struct{ held atomic.Bool }

// tryLock acquires l if it is free.
func (l *spinLock) tryLock() bool {
	return !l.held.Load() && l.held.CompareAndSwap(false, true)
}

func (l *spinLock) unlock() { l.held.Store(false) }
