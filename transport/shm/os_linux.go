package shm

import (
	"errors"
	"os"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const supported = true

// futex operations; shared (not FUTEX_PRIVATE_FLAG), since waiter and
// waker are usually different processes.
const (
	futexWaitOp = 0
	futexWakeOp = 1
)

// mapFile maps size bytes of f shared, read-write.
func mapFile(f *os.File, size int) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
}

// retire replaces the mapping of mem, in place, by private zeroed memory:
// the segment is released, and a goroutine that still loads or adds to a
// word of it (a signal counter it polls, say) touches harmless memory
// rather than faulting. Only the address range stays reserved.
func retire(mem []byte) error {
	_, err := unix.MmapPtr(-1, 0, unsafe.Pointer(&mem[0]), uintptr(len(mem)),
		unix.PROT_READ|unix.PROT_WRITE, unix.MAP_FIXED|unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	return err
}

// futexWait sleeps while *w == val, at most d. Spurious returns (EINTR,
// EAGAIN when *w already changed, the timeout) are all fine for callers,
// which re-check their condition.
func futexWait(w *uint32, val uint32, d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWaitOp, uintptr(val),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// futexWake wakes the waiters on w. The call is raw (the Go scheduler is
// not told): it never blocks, and on a small VM it can take longer than
// the scheduler's system-call threshold (tens of microseconds), after
// which it would hand the caller's P away.
func futexWake(w *uint32) {
	unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWakeOp, 1<<30, 0, 0, 0)
}

// processAlive reports whether pid exists. Only ESRCH counts as dead: a
// process of another user (EPERM) and a zombie not yet reaped count as
// alive — the heartbeat catches those.
func processAlive(pid int) bool {
	return !errors.Is(unix.Kill(pid, 0), unix.ESRCH)
}

// wakeWord wakes the rank sleeping on w, if it announced that it sleeps.
// Any goroutine of any rank may call it.
func wakeWord(w *uint32) {
	if atomic.LoadUint32(w) == 1 && atomic.CompareAndSwapUint32(w, 1, 0) {
		futexWake(w)
	}
}

// errNoProcess and errNoPermission are how process_vm_readv says that the
// process is gone or that this one may not read it.
var (
	errNoProcess    error = unix.ESRCH
	errNoPermission error = unix.EPERM
)

// vmRead is readMem over process_vm_readv(2), made as a raw system call:
// the Go scheduler is not told, so it does not hand the rank's P to
// another thread while the kernel copies (it does for a system call that
// runs longer than tens of microseconds, and a rank pinned to one CPU then
// shares that CPU with the scheduler's monitor thread, which wakes
// repeatedly while that goes on and slows large pulls markedly:
// docs/benchmarks.md, "Pulls as raw system calls" in section "Shared
// memory on a new host"). A call must
// therefore be short: Endpoint.read copies at most maxRawRead bytes a
// call.
func vmRead(pid int, local [][]byte, remote []span) (int, error) {
	liov := make([]unix.Iovec, len(local))
	for i, b := range local {
		if len(b) > 0 {
			liov[i].Base = &b[0]
		}
		liov[i].SetLen(len(b))
	}
	riov := make([]unix.RemoteIovec, len(remote))
	for i, s := range remote {
		riov[i] = unix.RemoteIovec{Base: uintptr(s.addr), Len: int(s.len)}
	}
	if len(liov) == 0 || len(riov) == 0 {
		return 0, nil
	}
	n, _, errno := unix.RawSyscall6(unix.SYS_PROCESS_VM_READV, uintptr(pid),
		uintptr(unsafe.Pointer(&liov[0])), uintptr(len(liov)),
		uintptr(unsafe.Pointer(&riov[0])), uintptr(len(riov)), 0)
	runtime.KeepAlive(liov)
	runtime.KeepAlive(local)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
