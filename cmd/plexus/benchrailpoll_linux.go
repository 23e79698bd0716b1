package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/plexus-hpc/plexus/internal/rawsock"
	"golang.org/x/sys/unix"
)

// The tcppoll impl's connection: one TCP connection whose descriptor is
// taken out of Go's netpoller (duplicated, the net.Conn closed), read by
// a spin of non-blocking reads that offers the CPU (sched_yield) every
// pollYield empty reads, as a multirail Link's polling Recv does; written
// whole, waiting in poll(2) for room. It has no framing, no
// acknowledgements and no second rail: the floor of what a polling Go
// receiver gets on the link, for the Link's small-message path to be
// judged against.

// pollYield is how many empty reads pass between yields.
const pollYield = 32

// spinConn is a net.Conn over a non-blocking descriptor in no epoll set.
// One goroutine may read and one write at a time; Close only once both
// are done.
type spinConn struct {
	fd int
}

// newSpinConn takes c's socket out of the netpoller (rawsock.Detach);
// c is closed, even on an error.
func newSpinConn(c net.Conn) (net.Conn, error) {
	fd, err := rawsock.Detach(c)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("tcppoll: %w", err)
	}
	return &spinConn{fd: fd}, nil
}

// Read spins until some bytes arrive, the stream ends or breaks.
func (c *spinConn) Read(p []byte) (int, error) {
	for n := 1; ; n++ {
		k, err := unix.Read(c.fd, p)
		switch {
		case err == nil && k == 0 && len(p) > 0:
			return 0, io.EOF
		case err == nil:
			return k, nil
		case err != unix.EAGAIN && err != unix.EINTR:
			return 0, err
		}
		if n%pollYield == 0 {
			unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
		}
	}
}

// Write writes all of p, waiting in poll(2) while the buffer is full.
func (c *spinConn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		k, err := unix.Write(c.fd, p[done:])
		switch {
		case err == nil:
			done += k
		case err == unix.EAGAIN:
			if err := rawsock.Wait(c.fd, unix.POLLOUT); err != nil {
				return done, err
			}
		case err != unix.EINTR:
			return done, err
		}
	}
	return done, nil
}

func (c *spinConn) Close() error                     { return unix.Close(c.fd) }
func (c *spinConn) LocalAddr() net.Addr              { return nil }
func (c *spinConn) RemoteAddr() net.Addr             { return nil }
func (c *spinConn) SetDeadline(time.Time) error      { return errNoDeadline }
func (c *spinConn) SetReadDeadline(time.Time) error  { return errNoDeadline }
func (c *spinConn) SetWriteDeadline(time.Time) error { return errNoDeadline }

var errNoDeadline = errors.New("tcppoll: no deadlines on a spinning connection")
