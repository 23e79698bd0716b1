package wait

import (
	"runtime"
	"time"
)

// Spinner is the spin of a poller whose poll is a system call (a read of
// a socket) and whose writer, a peer process, may or may not share its
// CPU. It spins under Poller until its Company has learnt that the
// writer shares the CPU, and under SharedPoller while that holds; it
// offers the thread's CPU (OSYield) wherever the policy checks or
// yields, and teaches its Company how each spin that found its event
// ended. Every such poller in Plexus spins through a Spinner, so that
// they wait alike and a benchmark's floor waits as the transport does.
//
// The zero value is ready to use. Spin may be called by several
// goroutines at once (they share what is learnt); the fields must not
// change once a spin has begun.
type Spinner struct {
	// Wakes says that a poll may make goroutines of this process ready
	// (it hands what it read to them): then every Poller.Check polls an
	// offer of the CPU first lets them run (runtime.Gosched). Not more
	// often: with an idle P, Gosched wakes a thread to look for work,
	// which takes a CPU from the peer for tens of microseconds.
	Wakes bool
	// Endless says that a spin never gives up of itself: where the policy
	// says to sleep it offers the CPU and begins its phases again. For a
	// poller that nothing could wake from a sleep.
	Endless bool

	company Company
	offer   func(gosched bool) Ending // tests' twin of offerCPU
	clock   func() time.Duration      // tests' clock for the Waiter
}

// Outcome is how a Spin ended.
type Outcome uint8

const (
	// Found: a poll, or arrived, found the event.
	Found Outcome = 1 + iota
	// Stopped: stop reported true after an offer of the CPU.
	Stopped
	// Spent: the policy says to sleep (never with Endless).
	Spent
)

func (o Outcome) String() string {
	switch o {
	case Found:
		return "found"
	case Stopped:
		return "stopped"
	case Spent:
		return "spent"
	}
	return "outcome(?)"
}

// Spin polls until the event it waits for comes, stop says to give up,
// or the policy's spin is spent (the caller then sleeps as it can).
//
// poll makes the spin's n-th poll (n from 1) and reports whether it
// found the event. arrived, if not nil, reports without polling whether
// the event came by other means (another goroutine polled it in): it is
// asked before the first poll and after every failed poll (and the offer
// of the CPU that follows it, if one does). stop, if not nil, is asked
// after every offer of the CPU (every Poller.Check polls, or every poll
// once the writer is learnt to share the CPU): a check of the caller's
// context.
//
// In order, a spin: asks arrived; offers the CPU if the writer is
// learnt to share it; then, until one ends it, polls, asks the policy,
// offers the CPU and asks stop where the policy checks or yields,
// and asks arrived.
func (s *Spinner) Spin(poll func(n int) bool, arrived, stop func() bool) Outcome {
	if arrived != nil && arrived() {
		return Found
	}
	w, offerFirst := s.begin()
	var e evidence
	if offerFirst {
		e.offered(s.offerCPU(false)) // nothing polled yet, nobody made ready
	}
	for n := 1; ; n++ {
		if poll(n) {
			s.learn(e)
			return Found
		}
		e = evidence{told: true}
		m := s.after(w.Next(), w.Polls())
		if m.offer {
			e.offered(s.offerCPU(m.gosched))
			if stop != nil && stop() {
				return Stopped
			}
		}
		switch {
		case m.spent:
			return Spent
		case m.restart:
			w.Restart()
		}
		if arrived != nil && arrived() {
			s.learn(e)
			return Found
		}
	}
}

// Shared reports whether the spins have learnt that the writer shares
// their CPU.
func (s *Spinner) Shared() bool { return s.company.Shared() }

// begin starts a spin: under the policy the Company chooses, and with an
// offer of the CPU before the first poll when the writer shares it,
// since nothing can come before the writer runs.
func (s *Spinner) begin() (w Waiter, offerFirst bool) {
	p := s.company.Choose(&Poller, &SharedPoller)
	return Waiter{p: p, clock: s.clock}, p == &SharedPoller
}

// evidence is what the next poll that finds the event teaches, if told:
// what the first poll of a spin finds may have come before the spin
// began, so it teaches nothing unless the CPU was offered before it.
type evidence struct {
	end  Ending
	told bool
}

func (e *evidence) offered(end Ending) { e.end, e.told = end, true }

// learn teaches the Company how a spin that found its event ended.
func (s *Spinner) learn(e evidence) {
	if e.told {
		s.company.Learn(e.end)
	}
}

// move is what a spin does after a failed poll.
type move struct {
	offer   bool // offer the CPU, then ask stop
	gosched bool // let this process's goroutines run first
	spent   bool // give up: the caller sleeps
	restart bool // begin the policy's phases again
}

// after returns the move for action a after the polls-th failed poll. It
// is pure: Spin feeds it the Waiter's actions, and tests feed it tables.
// Pause does not pause: a poll that is a system call is pause enough.
func (s *Spinner) after(a Action, polls int) move {
	gosched := s.Wakes && polls%Poller.Check == 0
	switch a {
	case Check, Yield:
		return move{offer: true, gosched: gosched}
	case Sleep:
		if s.Endless {
			return move{offer: true, gosched: gosched, restart: true}
		}
		return move{spent: true}
	}
	return move{}
}

func (s *Spinner) offerCPU(gosched bool) Ending {
	if s.offer != nil {
		return s.offer(gosched)
	}
	return offerCPU(gosched)
}

// offerCPU offers the thread's CPU (OSYield): the peer that will answer
// may be waiting for this very CPU, and a spin that kept it would cost a
// spin budget a message (Open MPI's mpi_yield_when_idle does the same).
// With gosched it first lets the goroutines this one made ready run. It
// returns how long the thread's CPU was away, the sched_yield alone, for
// a Company to learn from.
func offerCPU(gosched bool) Ending {
	if gosched {
		runtime.Gosched()
	}
	// The monotonic clock alone (time.Since of a fixed instant): time.Now
	// reads the wall clock too, which a spin offering its CPU after every
	// poll paid twice a round trip for nothing.
	t := time.Since(epoch)
	OSYield()
	return Ending{Yielded: true, Yield: time.Since(epoch) - t}
}
