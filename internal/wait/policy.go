package wait

import "time"

// Action is what a waiter does after a poll that found nothing.
type Action uint8

const (
	// Poll: poll again at once.
	Poll Action = 1 + iota
	// Pause: pause briefly (Pause), then poll again.
	Pause
	// Check: still spinning; check the context (or the team, the
	// connection) now, then poll again.
	Check
	// Yield: offer the CPU to another runnable goroutine or thread, check
	// the context, poll again.
	Yield
	// Sleep: block until woken by the event waited for (or nap), check
	// the context, poll again.
	Sleep
)

func (a Action) String() string {
	switch a {
	case Poll:
		return "poll"
	case Pause:
		return "pause"
	case Check:
		return "check"
	case Yield:
		return "yield"
	case Sleep:
		return "sleep"
	}
	return "action(?)"
}

// Policy is one set of budgets of the waiting policy (see the package
// documentation). The values below are the only tuning of waits in
// Plexus; the numbers behind them are in docs/benchmarks.md.
type Policy struct {
	// Flat is how many polls run flat out before anything else.
	Flat int
	// Spin is how long, from the first clock read (after Flat polls),
	// the waiter polls with pauses before it yields.
	Spin time.Duration
	// YieldFor is how long after Spin the waiter yields before it sleeps.
	YieldFor time.Duration
	// Check is how many polls pass between clock reads while spinning: a
	// clock read costs more than a poll.
	Check int
	// MaxPause is the longest pause between polls, in pause-loop
	// iterations; pauses grow by one per poll up to it.
	MaxPause int
	// OSYield makes Yield give up the thread's CPU (sched_yield) rather
	// than the goroutine's P: for goroutines locked to a pinned thread,
	// where runtime.Gosched parks the thread and wakes another to run the
	// P, two futex hand-offs that steal a CPU from another pinned waiter.
	OSYield bool
}

// The policies. Spin is the budget of a waiter with a CPU of its own:
// long enough to cover a peer that is merely busy (or being woken, which
// costs tens of microseconds on a VM), short enough that an idle waiter
// gives its CPU back soon.
var (
	// Owned is for a waiter that has a CPU to itself: a pinned team
	// member, a ring end, a rank's blocking call.
	Owned = Policy{Flat: 64, Spin: 100 * time.Microsecond, YieldFor: 20 * time.Microsecond, Check: 64, MaxPause: 64}
	// Pinned is Owned for a goroutine locked to a pinned thread.
	Pinned = withOSYield(Owned)
	// Shared is for a waiter that shares its CPU (or P) with the
	// goroutine it waits for: spinning would only delay that goroutine,
	// so it yields almost at once.
	Shared = Policy{Flat: 64, Spin: 2 * time.Microsecond, YieldFor: 50 * time.Microsecond, Check: 64, MaxPause: 64}
	// Helper is for a helper goroutine whose work the waiters do
	// themselves while they poll (a transport's receive goroutine): it
	// matters only when nobody waits, and every microsecond it spins is
	// taken from a peer that may need the CPU.
	Helper = Policy{Flat: 64, Spin: 5 * time.Microsecond, YieldFor: 2 * time.Microsecond, Check: 64, MaxPause: 64}
	// Poller is for a waiter whose poll is itself a transport sweep (a
	// rank's blocking call polling shared memory or a socket): no pauses,
	// a check (where the caller lets goroutines it made ready run) every
	// Check polls, and sleep, not yield, once Spin has passed, since the
	// transport can wake it.
	Poller = Policy{Flat: 32, Spin: Owned.Spin, Check: 32, MaxPause: 1}
	// SharedPoller is Poller for a waiter that has learnt (Company) that
	// the writer shares its CPU: nothing can arrive before the writer
	// runs, and a poll that is a system call costs about as much as
	// offering the CPU, so it checks (and yields) after every poll.
	SharedPoller = Policy{Flat: 1, Spin: Poller.Spin, Check: 1, MaxPause: 1}
)

// StandAside is how long after a poller's last poll a transport's own
// receiver keeps out of its way (shm, tcp): several of Poller's spin
// budgets, so that it does not contend with a poller that is still
// spinning, yet a poller that left without saying so leaves the
// connection unwatched for no longer than this.
const StandAside = 500 * time.Microsecond

// NapFor is how long a waiter that nobody wakes sleeps between polls in
// the Sleep phase. A sleep shorter than the timer's granularity lasts the
// granularity anyway (up to a millisecond on a VM), which is why every
// wait that can be woken by its event is, and naps only as a fallback.
const NapFor = 50 * time.Microsecond

// WakeTimeout bounds a sleep that waits to be woken: the sleeper polls
// again after it even if nobody woke it, for events that wake nobody (a
// cancelled context).
const WakeTimeout = 2 * time.Millisecond

func withOSYield(p Policy) Policy {
	p.OSYield = true
	return p
}

// Decide returns the action after the polls-th failed poll of a wait,
// elapsed after the first clock read. It is pure: Waiter feeds it the
// clock, and tests feed it tables.
func (p *Policy) Decide(polls int, elapsed time.Duration) Action {
	switch {
	case polls < p.Flat:
		return Poll
	case elapsed < p.Spin:
		if p.Check > 0 && polls%p.Check == 0 {
			return Check
		}
		return Pause
	case elapsed < p.Spin+p.YieldFor:
		return Yield
	}
	return Sleep
}

// PauseLen is how many pause iterations follow the polls-th failed poll.
func (p *Policy) PauseLen(polls int) int {
	return max(1, min(polls-p.Flat+1, p.MaxPause))
}
