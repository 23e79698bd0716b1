package coll

import (
	"time"

	"github.com/plexus-hpc/plexus/internal/wait"
)

// A member waiting on remote links (another process, over comm) cannot
// afford time.Sleep once it stops spinning: a sleep of tens of
// microseconds may last up to a millisecond on a VM (timer slack and
// scheduling), which then dominates every barrier that sleeps. A link that
// can tell when something arrives rings the member's bell instead, and the
// napping member wakes at once.

// Belled is implemented by links that can wake a waiting member: after
// SetBell, every message, signal or failure on the link leaves a token on
// bell (without blocking when one is already there). SetBell is called
// once, before the member runs.
type Belled interface {
	SetBell(bell chan<- struct{})
}

// napOnBell waits for the bell, or wait.WakeTimeout at most: a cancelled
// context rings no bell.
func napOnBell(bell <-chan struct{}) {
	t := time.NewTimer(wait.WakeTimeout)
	select {
	case <-bell:
	case <-t.C:
	}
	t.Stop()
}

// ringBells gives m a bell and hands it to every link of m that takes one,
// and finds the transport m's waits progress.
func ringBells(m *Member) {
	m.bell = make(chan struct{}, 1)
	ends := append([]end{m.bparent, m.rparent}, m.bkids...)
	ends = append(ends, m.rkids...)
	ends = append(ends, m.dissOut...)
	ends = append(ends, m.dissIn...)
	ends = append(ends, m.bf.partner...)
	if m.bf.hasFold {
		ends = append(ends, m.bf.fold)
	}
	m.prog = progresser(ends)
	for _, e := range ends {
		if b, ok := e.Link.(Belled); ok {
			b.SetBell(m.bell)
		}
	}
}

// idle is s.idle for a wait of m, starting s at the wait's first failed
// poll: most waits end before one, and the fast path then reads none of
// the fields a wait needs.
func (m *Member) idle(s *spinner) bool {
	if s.w.Policy() == nil {
		room := s.room
		*s = m.newSpinner()
		s.room = room
	}
	return s.idle()
}

// newSpinner starts one wait of m.
func (m *Member) newSpinner() spinner {
	s := spinner{w: wait.NewWaiter(m.policy), bell: m.bell, prog: m.prog}
	if m.door != nil {
		s.m = m
	}
	return s
}
