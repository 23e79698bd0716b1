// Package wait is Plexus's one waiting policy: how a goroutine that polls
// for something another goroutine or process will write (a ring slot, a
// signal count, a transport's next frame) spends the time until it comes.
// Every waiting loop in Plexus — the rings, in-process and remote
// collectives, the shared-memory and TCP transports' receivers, comm's
// blocking calls — takes its phases and budgets from here, so the policy
// is tuned in one place (policy.go) and a fix to it holds everywhere.
//
// The policy has four phases, decided from the failed polls so far and the
// time since the wait began (Policy.Decide, a pure function):
//
//   - Poll: the first Flat polls run flat out. A hand-off between two
//     spinning CPUs takes tens of nanoseconds and most waits end here.
//   - Pause: polls separated by short busy pauses that touch no shared
//     line, until Spin has passed: the peer is busy, not gone. Every
//     Check polls the clock is read and the caller checks its context.
//   - Yield: the CPU is offered to whoever else is runnable, for YieldFor:
//     the peer may share this CPU or P.
//   - Sleep: the peer is descheduled or idle. The waiter blocks on
//     whatever will tell it that its event happened (a bell the writer
//     rings, a shared-memory doorbell, a request's channel); where nobody
//     can tell it, it naps for Nap and polls again. A waiter locked to
//     its thread that the writer can wake directly sleeps in FutexWait
//     on a word the writer changes and then passes to FutexWake (Linux):
//     a wake-up through a channel would go through Go's scheduler and
//     cost several thread hand-offs.
//
// Which Policy a wait uses depends on who it waits for, not on where it is
// written: Owned when the waiter has a CPU of its own (pinned members,
// ring ends, a rank's blocking call), Shared when it shares a CPU with the
// goroutine it waits for, Helper for a helper goroutine whose work the
// waiters do themselves while they poll. Where that is not known in
// advance (two processes placed by the scheduler), a Company learns it
// from how the waits end and chooses between Poller and SharedPoller. A
// poller whose poll is a system call spins through a Spinner, which
// holds that Company and the whole loop (poll, ask the policy, offer the
// CPU, learn), so that every such poller waits alike:
//
//	var s wait.Spinner // shared by the poller's waits
//	switch s.Spin(readSocket, nil, func() bool { return ctx.Err() != nil }) {
//	case wait.Found: // readSocket found data
//	case wait.Stopped: // ctx ended
//	case wait.Spent: // sleep until woken (or set s.Endless)
//	}
//
// Usage, in a loop that polls cond:
//
//	w := wait.NewWaiter(&wait.Owned)
//	for !cond() {
//		switch w.Idle() { // pauses and yields itself
//		case wait.Check, wait.Yield:
//			if err := ctx.Err(); err != nil {
//				return err
//			}
//		case wait.Sleep:
//			sleepUntilWoken() // or wait.Nap()
//		}
//	}
//
// A Waiter is owned by one goroutine; a Company or a Spinner may be
// shared by several; Policies are read-only values.
package wait
