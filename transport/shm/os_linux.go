package shm

import (
	"errors"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

const supported = true

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

// processAlive reports whether pid exists. Only ESRCH counts as dead: a
// process of another user (EPERM) and a zombie not yet reaped count as
// alive — the heartbeat catches those.
func processAlive(pid int) bool {
	return !errors.Is(unix.Kill(pid, 0), unix.ESRCH)
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
