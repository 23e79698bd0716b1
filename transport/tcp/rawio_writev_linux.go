//go:build linux

package tcp

import (
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// iovBatch is the most buffers one writev call takes here; flushes pass
// at most maxFlushIov.
const iovBatch = maxFlushIov

// writev writes iov in one system call (the first iovBatch buffers of
// it). Unlike unix.Writev it builds the iovec array on the stack, so a
// flush allocates nothing.
func writev(fd int, iov [][]byte) (int, error) {
	var vecs [iovBatch]unix.Iovec
	n := 0
	for _, b := range iov[:min(len(iov), iovBatch)] {
		if len(b) == 0 {
			continue
		}
		vecs[n].Base = &b[0]
		vecs[n].SetLen(len(b))
		n++
	}
	if n == 0 {
		return 0, nil
	}
	r, _, errno := syscall.Syscall(unix.SYS_WRITEV, uintptr(fd), uintptr(unsafe.Pointer(&vecs[0])), uintptr(n))
	runtime.KeepAlive(iov)
	switch errno {
	case 0:
	case syscall.EAGAIN:
		return 0, syscall.EAGAIN // a constant: no allocation on a full socket
	default:
		return 0, errno
	}
	return int(r), nil
}
