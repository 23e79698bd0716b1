package comm

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// osYield (a variable for tests) gives this thread's CPU to another runnable thread, of this
// process or another (sched_yield(2)).
//
// The call is raw: the Go scheduler is not told, so it does not hand the
// rank's P to another thread when the yield lasts longer than 20 µs,
// which it does whenever another rank on the CPU runs for that long —
// the point of yielding. Each such hand-off, and the P's return, cost
// futex wake-ups of the runtime's threads: 4 ranks on 2 CPUs measured
// 36-53 µs per barrier so, 25-29 µs raw (Open MPI 16 µs).
var osYield = func() { syscall.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
