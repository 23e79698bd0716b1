package coll

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/internal/wait"
)

// Every poll loop in the package waits under Plexus's one waiting policy
// (internal/wait): poll flat out, then with short pauses for the policy's
// spin budget, then yield, then sleep. Which budgets apply depends on
// whether the members can all run at once, not on who pinned them: when
// they are no more than GOMAXPROCS, each owns a CPU (or P) as far as the
// team is concerned, spins long and yields its thread's CPU rather than
// its P (wait.Pinned). That holds for members pinned by Run (Config.Pin),
// by their callers (Member.Pin, affinity.Pin) or not at all: a member
// whose goroutine is locked to a thread must never yield with
// runtime.Gosched, which parks the thread and hands the goroutine back
// through another, tens of microseconds on a VM, and coll cannot see
// whether its caller locked the thread. Members that outnumber the Ps
// share them, so a spinning waiter would only delay the peer it waits
// for: they yield early (wait.Shared).
//
// How a member sleeps is this package's: in-process members block on
// their door and are woken by the member that sends or signals to them
// (door.go), remote members on their bell or the transport (bell.go,
// progress.go).

// policyFor returns the waiting policy for one of n members: long spins
// when they can all run at once, short when some must share a P.
func policyFor(n int) *wait.Policy {
	if n <= runtime.GOMAXPROCS(0) {
		return &wait.Pinned
	}
	return &wait.Shared
}

// spinner is one wait of a member under the policy. Its zero value waits
// under wait.Shared with no member behind it (twin links' own waits). It
// is owned by one goroutine.
type spinner struct {
	w    wait.Waiter
	m    *Member         // the waiting member of an in-process team, else nil
	bell <-chan struct{} // when set, napping waits on it (see bell.go)

	n          int        // idle calls, for progress's cadence
	prog       Progresser // when set, polls progress it first (see progress.go)
	since      time.Time  // the first progress check (progress.go)
	progressed bool       // prog has moved the transport
	drowsy     bool       // prog must be progressed, and the budget is spent
	// every, when above 1, has only every every-th idle poll progress
	// prog: a wait for a signal that the transport does not deliver
	// (shared counters) polls the signal in between.
	every int
	// announced: the member has said it is about to sleep (door.go), and
	// the caller's next poll is the last look before it blocks.
	announced bool
	room      bool // the wait is for room on a full link (door.go)
}

// idle is called after a poll that found nothing. It reports whether the
// caller should check for cancellation now.
func (s *spinner) idle() bool {
	s.n++
	if s.w.Policy() == nil {
		s.w = wait.NewWaiter(&wait.Shared)
	}
	if s.m != nil && s.m.debt {
		s.m.repay() // woken, and waiting again: the wake-up is over
	}
	if s.prog != nil {
		if s.every > 1 && s.n%s.every != 0 {
			return false
		}
		if s.progress() {
			return s.n%s.w.Policy().Check == 0
		}
	}
	if s.bell != nil {
		// Remote links take microseconds, and spinning or yielding would
		// take the CPU from the threads (ours or the peer rank's) that
		// deliver: past the flat polls the wait sleeps on its bell.
		if s.w.Next() == wait.Poll {
			return false
		}
		napOnBell(s.bell)
		return true
	}
	switch s.w.Idle() {
	case wait.Poll, wait.Pause:
		return false
	case wait.Check, wait.Yield:
		return true
	}
	if s.m != nil {
		s.sleepOnDoor()
	} else {
		wait.Nap()
	}
	return true
}

// settle ends a wait whose last poll succeeded: a member that had
// announced a sleep takes the announcement back (door.go).
func (s *spinner) settle() {
	if s.announced {
		s.announced = false
		s.m.retract()
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
