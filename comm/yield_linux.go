package comm

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// osYield (a variable for tests) gives this thread's CPU to another runnable thread, of this
// process or another (sched_yield(2)).
var osYield = func() { syscall.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
