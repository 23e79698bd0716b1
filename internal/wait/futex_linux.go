package wait

import (
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// HaveFutex reports whether FutexWait and FutexWake work here: a thread
// locked to its goroutine that sleeps in futex(2) is woken by the waker
// directly, where a wake-up through a channel goes through Go's
// scheduler and costs several thread hand-offs (docs/design/wait.md,
// "How a woken member gets its CPU back").
const HaveFutex = true

// The futex(2) operations used, private to this process's memory.
const (
	futexWaitPrivate = 0 | 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 1 | 128 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// FutexWait blocks the calling thread while *addr holds val, for at most
// d; it may return early (a wake-up, a signal, a changed word). It is a
// blocking system call as far as Go's scheduler is concerned, so the P
// can be taken for other goroutines while it lasts.
func FutexWait(addr *atomic.Uint32, val uint32, d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	syscall.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitPrivate,
		uintptr(val), uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// FutexWake wakes one thread blocked in FutexWait on addr. It does not
// block, so it bypasses the scheduler's system-call bookkeeping.
func FutexWake(addr *atomic.Uint32) {
	syscall.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakePrivate, 1, 0, 0, 0)
}
