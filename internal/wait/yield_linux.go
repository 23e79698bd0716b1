package wait

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// OSYield gives this thread's CPU to another runnable thread, of this
// process or another (sched_yield(2)).
//
// The call is raw: the Go scheduler is not told, so it does not hand the
// goroutine's P to another thread when the yield lasts longer than its
// system-call threshold, which it does whenever another thread on the CPU
// runs for that long — the point of yielding. Each such hand-off, and the
// P's return, would cost futex wake-ups of the runtime's threads.
func OSYield() { syscall.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
