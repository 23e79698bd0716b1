package comm

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// osYield (a variable for tests) gives this thread's CPU to another runnable thread, of this
// process or another (sched_yield(2)).
//
// The call is raw: the Go scheduler is not told, so it does not hand the
// rank's P to another thread when the yield lasts longer than its
// system-call threshold (tens of microseconds), which it does whenever
// another rank on the CPU runs for that long — the point of yielding.
// Each such hand-off, and the P's return, cost futex wake-ups of the
// runtime's threads, a large share of a crowded barrier
// (docs/benchmarks.md, section "Shared memory on a new host", 2026-11-25).
var osYield = func() { syscall.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
