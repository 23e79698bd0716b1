//go:build unix

package tcp

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// Raw socket I/O on a descriptor, for the reader, the writer and Poll,
// which work on the socket itself rather than through net.Conn.

func rawRead(fd int, p []byte) (int, error)  { return syscall.Read(fd, p) }
func rawWrite(fd int, p []byte) (int, error) { return syscall.Write(fd, p) }

// waitWritable blocks the thread until fd has room or writeWait passes.
func waitWritable(fd int) {
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	unix.Poll(pfd, writeWait)
}
