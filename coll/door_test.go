package coll

import (
	"testing"

	"github.com/plexus-hpc/plexus/internal/wait"
	"github.com/plexus-hpc/plexus/tree"
)

// doorTeam is an unpinned two-member team whose doors the tests drive by
// hand, on one goroutine; its doors sleep in futex(2) if futex is set.
func doorTeam(t *testing.T, futex bool) (*Team, *Member, *Member) {
	if futex && !wait.HaveFutex {
		t.Skip("no futex(2) on this system")
	}
	team := newTeam(t, Config{Broadcast: buildTree(t, 3, tree.Binary)})
	ms := team.Members()
	for _, m := range ms {
		m.door.futex = futex
	}
	return team, ms[0], ms[1]
}

// doorModes runs f with channel doors and with futex doors.
func doorModes(t *testing.T, f func(t *testing.T, futex bool)) {
	for _, futex := range []bool{false, true} {
		name := "chan"
		if futex {
			name = "futex"
		}
		t.Run(name, func(t *testing.T) { f(t, futex) })
	}
}

// tokens is how many wake-ups wait to be taken at d: tokens on a
// channel door; a futex door's token is its woken state.
func tokens(d *door) int {
	if d.futex {
		if d.state.Load() == woken {
			return 1
		}
		return 0
	}
	return len(d.ch)
}

// A send to a member that announced its sleep wakes it with one token and
// one debt on the gauge, which the woken member repays when it moves on.
func TestDoorWake(t *testing.T) { doorModes(t, testDoorWake) }

func testDoorWake(t *testing.T, futex bool) {
	team, a, b := doorTeam(t, futex)
	b.door.state.Store(asleep)
	a.notify(end{peer: b.door})
	if got := b.door.state.Load(); got != woken || team.waking.n.Load() != 1 || tokens(b.door) != 1 {
		t.Fatalf("after notify: state %d, gauge %d, %d tokens; want woken, 1, 1", got, team.waking.n.Load(), tokens(b.door))
	}
	a.notify(end{peer: b.door}) // woken already: no second token or debt
	if team.waking.n.Load() != 1 || tokens(b.door) != 1 {
		t.Fatalf("a second notify counted again: gauge %d, %d tokens", team.waking.n.Load(), tokens(b.door))
	}
	if !b.block() || !b.debt || b.door.state.Load() != awake {
		t.Fatalf("block: debt %v, state %d; want a wake-up by the event", b.debt, b.door.state.Load())
	}
	b.notify(end{}) // b moves on
	if b.debt || team.waking.n.Load() != 0 {
		t.Errorf("after b moved on: debt %v, gauge %d; want false, 0", b.debt, team.waking.n.Load())
	}
}

// A member whose last look found the event takes its announcement back;
// if a waker came first, it takes the token and owes the debt.
func TestDoorRetract(t *testing.T) { doorModes(t, testDoorRetract) }

func testDoorRetract(t *testing.T, futex bool) {
	team, a, b := doorTeam(t, futex)
	b.door.state.Store(asleep)
	b.retract()
	if b.door.state.Load() != awake || b.debt || team.waking.n.Load() != 0 {
		t.Fatalf("uncontended retract: state %d, debt %v, gauge %d", b.door.state.Load(), b.debt, team.waking.n.Load())
	}
	b.door.state.Store(asleep)
	a.notify(end{peer: b.door})
	b.retract()
	if b.door.state.Load() != awake || !b.debt || tokens(b.door) != 0 {
		t.Fatalf("retract after a wake: state %d, debt %v, %d tokens", b.door.state.Load(), b.debt, tokens(b.door))
	}
}

// A sleeping member's wait does not block while a woken member of its
// team has not moved on: it yields instead, and sleeps once the gauge is
// back to zero.
func TestSleepDeferredWhileWaking(t *testing.T) {
	team, _, b := doorTeam(t, false)
	team.waking.n.Add(1)
	s := b.newSpinner()
	s.sleepOnDoor()
	if s.announced || b.door.state.Load() != awake {
		t.Fatal("announced a sleep while a member was waking")
	}
	team.waking.n.Add(-1)
	s.sleepOnDoor()
	if !s.announced || b.door.state.Load() != asleep {
		t.Fatal("did not announce a sleep with nobody waking")
	}
	s.settle()
	if b.door.state.Load() != awake {
		t.Error("settle left the announcement")
	}
}

// Closing a team wakes its sleepers at once.
func TestCloseWakesSleepers(t *testing.T) { doorModes(t, testCloseWakesSleepers) }

func testCloseWakesSleepers(t *testing.T, futex bool) {
	team, _, b := doorTeam(t, futex)
	b.door.state.Store(asleep)
	team.Close()
	if tokens(b.door) != 1 {
		t.Error("Close did not wake a sleeping member")
	}
}

// A member blocked at its futex door wakes when another goroutine
// notifies it, and owes the wake-up's debt.
func TestFutexDoorWakesBlocked(t *testing.T) {
	team, a, b := doorTeam(t, true)
	for range 100 {
		b.door.state.Store(asleep)
		woke := make(chan bool)
		go func() { woke <- b.block() }()
		a.notify(end{peer: b.door})
		if !<-woke || !b.debt || b.door.state.Load() != awake {
			t.Fatalf("block after notify: debt %v, state %d; want a wake-up", b.debt, b.door.state.Load())
		}
		b.repay()
	}
	if team.waking.n.Load() != 0 {
		t.Errorf("gauge %d after every wake-up was repaid", team.waking.n.Load())
	}
}

// A futex wake-up that finds the state unchanged (stale: meant for an
// earlier sleep) does not end a sleep: the member sleeps on to its
// timeout and reports no event.
func TestFutexDoorIgnoresStaleWake(t *testing.T) {
	_, _, b := doorTeam(t, true)
	b.door.state.Store(asleep)
	done := make(chan bool)
	go func() { done <- b.block() }()
	for range 10 {
		wait.FutexWake(&b.door.state)
	}
	if <-done || b.debt || b.door.state.Load() != awake {
		t.Fatalf("stale wake: debt %v, state %d; want a timeout, awake", b.debt, b.door.state.Load())
	}
}
