package coll

import (
	"testing"

	"github.com/plexus-hpc/plexus/tree"
)

// doorTeam is an unpinned two-member team whose doors the tests drive by
// hand, on one goroutine.
func doorTeam(t *testing.T) (*Team, *Member, *Member) {
	team := newTeam(t, Config{Broadcast: buildTree(t, 3, tree.Binary)})
	ms := team.Members()
	return team, ms[0], ms[1]
}

// A send to a member that announced its sleep wakes it with one token and
// one debt on the gauge, which the woken member repays when it moves on.
func TestDoorWake(t *testing.T) {
	team, a, b := doorTeam(t)
	b.door.state.Store(asleep)
	a.notify(end{peer: b.door})
	if got := b.door.state.Load(); got != woken || team.waking.n.Load() != 1 || len(b.door.ch) != 1 {
		t.Fatalf("after notify: state %d, gauge %d, %d tokens; want woken, 1, 1", got, team.waking.n.Load(), len(b.door.ch))
	}
	a.notify(end{peer: b.door}) // woken already: no second token or debt
	if team.waking.n.Load() != 1 || len(b.door.ch) != 1 {
		t.Fatalf("a second notify counted again: gauge %d, %d tokens", team.waking.n.Load(), len(b.door.ch))
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
func TestDoorRetract(t *testing.T) {
	team, a, b := doorTeam(t)
	b.door.state.Store(asleep)
	b.retract()
	if b.door.state.Load() != awake || b.debt || team.waking.n.Load() != 0 {
		t.Fatalf("uncontended retract: state %d, debt %v, gauge %d", b.door.state.Load(), b.debt, team.waking.n.Load())
	}
	b.door.state.Store(asleep)
	a.notify(end{peer: b.door})
	b.retract()
	if b.door.state.Load() != awake || !b.debt || len(b.door.ch) != 0 {
		t.Fatalf("retract after a wake: state %d, debt %v, %d tokens", b.door.state.Load(), b.debt, len(b.door.ch))
	}
}

// A sleeping member's wait does not block while a woken member of its
// team has not moved on: it yields instead, and sleeps once the gauge is
// back to zero.
func TestSleepDeferredWhileWaking(t *testing.T) {
	team, _, b := doorTeam(t)
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
func TestCloseWakesSleepers(t *testing.T) {
	team, _, b := doorTeam(t)
	b.door.state.Store(asleep)
	team.Close()
	if len(b.door.ch) != 1 {
		t.Error("Close did not wake a sleeping member")
	}
}
