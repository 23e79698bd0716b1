package rawsock

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrNoDescriptor reports a connection that has no socket descriptor to
// take (an in-memory pipe, a TLS wrapper).
var ErrNoDescriptor = errors.New("rawsock: connection has no socket descriptor")

// Detach returns a non-blocking duplicate of c's descriptor, close-on-
// exec, and closes c, which takes the socket out of the netpoller; the
// duplicate keeps the connection open and belongs to the caller. On an
// error c is left open and untouched.
func Detach(c net.Conn) (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1, ErrNoDescriptor
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd, derr := -1, error(nil)
	if err := raw.Control(func(d uintptr) { fd, derr = unix.FcntlInt(d, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	if derr != nil {
		return -1, derr
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	c.Close()
	return fd, nil
}

// Wait blocks in poll(2) until fd has one of events, a hang-up or an
// error; net.ErrClosed when fd is no open descriptor. The next read or
// write says what came.
func Wait(fd int, events int16) error {
	fds := []unix.PollFd{{Fd: int32(fd), Events: events}}
	for {
		_, err := unix.Poll(fds, -1)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case fds[0].Revents&unix.POLLNVAL != 0:
			return net.ErrClosed
		}
		return nil
	}
}
