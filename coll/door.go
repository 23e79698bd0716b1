package coll

// Sleeping members of an in-process team are woken by the event they
// wait for, not by a timer. A member whose wait has spent the policy's
// spin and yield budgets announces on its door that it sleeps, polls once
// more, and blocks on the door's channel; a member that then sends or
// signals to it sees the announcement and wakes it. So a member that was
// late (descheduled, or held by a GC pause) costs its team that delay and
// one wake-up per sleeper, not a nap's timer granularity at every level of
// the trees in turn.
//
// Two more rules keep one late member from starting a cascade:
//
//   - A member woken by an event wakes every other sleeping member of the
//     team (wakeAll): the operation it resumes is about to reach them, and
//     they wake in parallel rather than one tree level after another. Only
//     where every member can run at once (Team.together): members that
//     outnumber the CPUs would only take them from each other.
//   - A member does not go to sleep while another member of the team has
//     been woken and has not yet moved on (Team.waking): the peer it waits
//     for may be that member, late by one wake-up, and sleeping now would
//     make its own waiters late by one more — the cascade. Each waiter's
//     clock alone cannot see that; the team's gauge does. A woken member
//     has moved on once it has sent or signalled (notify) or waits again
//     (spinner.idle). So that a woken member that goes off to compute
//     cannot keep the others spinning, the gauge holds a waiter awake for
//     at most wait.WakeTimeout past its own budget.
//
// How a member blocks depends on its team. Where every member can run at
// once (Team.together) on Linux, it sleeps in futex(2) on the door's
// state word and a waker wakes that thread directly. A goroutine locked
// to its thread, blocked on a channel, is woken through Go's scheduler
// instead: the waker queues it on its own P, another thread has to steal
// it from there (stealing a running P's next goroutine first sleeps a few
// microseconds, which timer slack makes tens) and then hand the P to the
// locked thread — a wake-up that costs a large part of a waiter's spin
// budget, so that the members waiting on the woken one run out of budget
// and sleep too, operation after operation (docs/benchmarks.md, "Waking a
// pinned member"). Elsewhere (more members than Ps, other systems) a
// member blocks on the door's channel, which gives its P to the members
// that share it.
//
// Invariants: a door's state goes awake -> asleep (its member announces),
// asleep -> woken (a waker's CAS; the winner counts one debt on the team's
// waking gauge and then sends the one token, or wakes the futex), asleep -> awake (its member
// retracts or its sleep times out, by CAS), and woken -> awake (its member,
// after taking the token). So each sleep gets at most one token and one
// debt, and a debt is repaid (Member.repay) by the member it was counted
// for, once. The announcement is a sequentially consistent store followed
// by a poll; a wake is a sequentially consistent publish (ring slot or
// signal count) followed by a load of the state: one of the two sides
// sees the other, so no wake-up is lost.

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/plexus-hpc/plexus/internal/wait"
)

const (
	awake uint32 = iota
	asleep
	asleepRoom // asleep, waiting for room on a full link
	woken
)

// door is where a member of an in-process team sleeps. It fills whole
// cache lines: every send to the member reads state, and nothing another
// member writes should share the line.
type door struct {
	doorState
	_ [(cacheLine - unsafe.Sizeof(doorState{})%cacheLine) % cacheLine]byte
}

type doorState struct {
	state atomic.Uint32
	ch    chan struct{} // capacity 1: the one token of a sleep
	futex bool          // sleep in futex(2) on state, not on ch
}

// newDoor returns a door whose member sleeps in futex(2) if futex is set
// (and the system has it), else on a channel.
func newDoor(futex bool) *door {
	d := &door{}
	d.ch = make(chan struct{}, 1)
	d.futex = futex && wait.HaveFutex
	return d
}

// gauge is the team's count of woken members that have not yet moved on,
// alone on its cache line: it is written only around wake-ups.
type gauge struct {
	n atomic.Int32
	_ [cacheLine - 4]byte
}

// notify wakes e's member if it sleeps, after m has sent or signalled on
// e, and ends m's own wake-up if it had one. Only m's goroutine calls it.
func (m *Member) notify(e end) {
	if d := e.peer; d != nil {
		if s := d.state.Load(); s == asleep || s == asleepRoom {
			m.team.wake(d, s)
		}
	}
	if m.debt {
		m.repay()
	}
}

// took wakes e's member if it sleeps waiting for room, after m has taken
// a message from e. Only m's goroutine calls it.
func (m *Member) took(e end) {
	if d := e.peer; d != nil && d.state.Load() == asleepRoom {
		m.team.wake(d, asleepRoom)
	}
}

// wake wakes the member sleeping at d in state s, unless it no longer is
// or another goroutine wakes it first. Any goroutine may call it.
func (t *Team) wake(d *door, s uint32) {
	if !d.state.CompareAndSwap(s, woken) {
		return
	}
	t.waking.n.Add(1) // before the token: the member repays after it
	if d.futex {
		wait.FutexWake(&d.state)
		return
	}
	d.ch <- struct{}{}
}

// wakeAll wakes every sleeping member; any goroutine may call it.
func (t *Team) wakeAll() {
	for _, o := range t.members {
		if o.door == nil {
			continue
		}
		if s := o.door.state.Load(); s == asleep || s == asleepRoom {
			t.wake(o.door, s)
		}
	}
}

// repay ends m's wake-up: it has moved on. Only m's goroutine calls it.
func (m *Member) repay() {
	m.debt = false
	m.team.waking.n.Add(-1)
}

// sleepOnDoor is the Sleep phase of an in-process member's wait: the
// first call announces the sleep (the caller then polls once more), the
// second blocks until woken or wait.WakeTimeout. A member woken by an
// event wakes the rest of the team and spins again before it sleeps
// again.
func (s *spinner) sleepOnDoor() {
	m := s.m
	if !s.announced {
		if m.team.waking.n.Load() > 0 && s.w.Elapsed() < s.deferLimit() {
			s.w.Yield() // a woken member is on its way: do not cascade
			return
		}
		state := asleep
		if s.room {
			state = asleepRoom
		}
		m.door.state.Store(state)
		s.announced = true
		return
	}
	s.announced = false
	if m.block() {
		if m.team.together {
			m.team.wakeAll()
		}
		s.w.Restart()
	}
}

// deferLimit is how long into a wait the team's gauge keeps it awake.
func (s *spinner) deferLimit() time.Duration {
	p := s.w.Policy()
	return p.Spin + p.YieldFor + wait.WakeTimeout
}

// block waits at m's door after an announcement and reports whether an
// event woke m (then m owes a debt), rather than the timeout.
func (m *Member) block() bool {
	d := m.door
	var woke bool
	if d.futex {
		woke = d.blockFutex()
	} else {
		woke = d.blockChan()
	}
	if woke {
		d.state.Store(awake)
		m.debt = true
	}
	return woke
}

// blockFutex sleeps on the state word until a waker has set it to woken,
// or for wait.WakeTimeout. Early returns (a stale wake-up meant for an
// earlier sleep, a signal) sleep again.
func (d *door) blockFutex() bool {
	deadline := time.Now().Add(wait.WakeTimeout)
	for {
		s := d.state.Load()
		if s == woken {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			// Only a waker changes an announced state, and only to woken.
			return !d.state.CompareAndSwap(s, awake)
		}
		wait.FutexWait(&d.state, s, left)
	}
}

// blockChan waits for the sleep's token on the channel, or for
// wait.WakeTimeout.
func (d *door) blockChan() bool {
	t := time.NewTimer(wait.WakeTimeout)
	woke := false
	select {
	case <-d.ch:
		woke = true
	case <-t.C:
	}
	t.Stop()
	if !woke {
		if s := d.state.Load(); s == woken || !d.state.CompareAndSwap(s, awake) {
			<-d.ch // a waker won the race; its token is on the way
			woke = true
		}
	}
	return woke
}

// retract takes back an announcement whose last poll found the event.
func (m *Member) retract() {
	d := m.door
	if s := d.state.Load(); s != woken && d.state.CompareAndSwap(s, awake) {
		return
	}
	if !d.futex {
		<-d.ch // the waker's token
	}
	d.state.Store(awake)
	m.debt = true
}
