package wait

import (
	"sync/atomic"
	"time"
)

// Company learns, from how a poller's waits end, whether the goroutine
// it waits for runs on its own CPU, so that its waits may offer the CPU
// after every poll (SharedPoller) while that holds and spin as usual
// (Poller) otherwise. Where the writer shares the waiter's CPU, nothing
// can arrive until the waiter lets it run, and every poll made before
// that only delays the answer; where the writer has a CPU of its own, a
// yield after every poll costs a system call each and hands the CPU to
// any stranger on it. Which of the two holds is not known in advance
// (two processes on a small machine land where the scheduler puts
// them) and can change, so it is learnt from the waits themselves.
//
// The zero value has learnt nothing and chooses the usual policy. A
// Company may be used by several waiters at once: an update that races
// with another may be lost, which only delays what is learnt by a wait.
type Company struct {
	score atomic.Int32
}

// Ending is how a wait that got its event ended, as Company learns from
// it.
type Ending struct {
	// Yielded: the poll that found the event came right after the waiter
	// offered its CPU.
	Yielded bool
	// Yield is how long that offer lasted.
	Yield time.Duration
}

// Evidence is what one Ending says of where the writer runs.
type Evidence uint8

const (
	// Unknown: the ending says nothing (the CPU went to someone for
	// longer than a peer's answer takes).
	Unknown Evidence = 1 + iota
	// Apart: the event came while the waiter kept its CPU.
	Apart
	// Together: the event came while the waiter had lent its CPU, for
	// about as long as a peer's answer takes.
	Together
)

func (e Evidence) String() string {
	switch e {
	case Unknown:
		return "unknown"
	case Apart:
		return "apart"
	case Together:
		return "together"
	}
	return "evidence(?)"
}

// YieldRan is the shortest offer of the CPU that counts as taken: a
// sched_yield that nobody took returns within about a microsecond on a
// VM, and a switch to another thread and back costs several.
const YieldRan = 3 * time.Microsecond

// YieldPeer is the longest offer of the CPU that counts as a peer's
// answer rather than a stranger's time slice (a scheduler's slice is a
// millisecond or so): a peer that shares the CPU answers and polls again
// within tens of microseconds.
const YieldPeer = 100 * time.Microsecond

// Evidence classifies e: Apart if the event came while the waiter kept
// its CPU (it had not yielded, or nobody took the CPU), Together if it
// came while the CPU was lent for less than YieldPeer, Unknown if for
// longer.
func (e Ending) Evidence() Evidence {
	switch {
	case !e.Yielded || e.Yield < YieldRan:
		return Apart
	case e.Yield < YieldPeer:
		return Together
	}
	return Unknown
}

// companyMax bounds the score, and companyShared is the score from
// which waits choose the shared policy: two endings in a row that say
// Together switch it, two that say Apart switch it back, so one stray
// ending (an involuntary switch, a stranger's short turn) does not.
const (
	companyMax    = 3
	companyShared = 2
)

// learn returns the score after evidence ev. It is pure: Company feeds
// it, and tests feed it tables.
func learn(score int32, ev Evidence) int32 {
	switch ev {
	case Together:
		return min(score+1, companyMax)
	case Apart:
		return max(score-1, 0)
	}
	return score
}

// Learn takes in how a wait ended. Waits that ended without their event
// (a sleep, a cancelled context) teach nothing and are not passed in.
func (c *Company) Learn(e Ending) {
	old := c.score.Load()
	if s := learn(old, e.Evidence()); s != old {
		c.score.Store(s)
	}
}

// Shared reports whether the waits have learnt that the writer shares
// their CPU.
func (c *Company) Shared() bool { return c.score.Load() >= companyShared }

// Choose returns together if the writer has been learnt to share the
// waiter's CPU, else apart.
func (c *Company) Choose(apart, together *Policy) *Policy {
	if c.Shared() {
		return together
	}
	return apart
}
