package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/plexus-hpc/plexus/internal/rawsock"
	"github.com/plexus-hpc/plexus/internal/wait"
	"golang.org/x/sys/unix"
)

// The tcppoll impl's connection: one TCP connection whose descriptor is
// taken out of Go's netpoller (duplicated, the net.Conn closed), read by
// a spin of non-blocking reads that waits exactly as a multirail Link's
// polling Recv does, through a wait.Spinner: offering the CPU
// (sched_yield) every 32 empty reads (wait.Poller), or before and after
// every read once it has learnt that the peer shares its CPU
// (wait.SharedPoller); written whole, waiting in poll(2) for room. It
// has no framing, no acknowledgements and no second rail: the floor of
// what a polling Go receiver gets on the link, for the Link's
// small-message path to be judged against.

// spinConn is a net.Conn over a non-blocking descriptor in no epoll set.
// One goroutine may read and one write at a time; Close only once both
// are done.
type spinConn struct {
	fd int
	// spinner: Read's spins. Endless: nothing would wake a sleep. Not
	// Wakes: a read hands nothing to another goroutine, so there is
	// nothing for the Link's Gosched to let run.
	spinner wait.Spinner
}

// newSpinConn takes c's socket out of the netpoller (rawsock.Detach);
// c is closed, even on an error.
func newSpinConn(c net.Conn) (net.Conn, error) {
	fd, err := rawsock.Detach(c)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("tcppoll: %w", err)
	}
	return &spinConn{fd: fd, spinner: wait.Spinner{Endless: true}}, nil
}

// Read spins until some bytes arrive, the stream ends or breaks. It
// never sleeps: past the policy's spin it starts the spin again.
func (c *spinConn) Read(p []byte) (int, error) {
	var k int
	var err error
	c.spinner.Spin(func(int) bool {
		k, err = unix.Read(c.fd, p)
		return err != unix.EAGAIN && err != unix.EINTR
	}, nil, nil)
	switch {
	case err != nil:
		return 0, err
	case k == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return k, nil
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
func (c *spinConn) Shutdown() error                  { return unix.Shutdown(c.fd, unix.SHUT_RDWR) }
func (c *spinConn) LocalAddr() net.Addr              { return nil }
func (c *spinConn) RemoteAddr() net.Addr             { return nil }
func (c *spinConn) SetDeadline(time.Time) error      { return errNoDeadline }
func (c *spinConn) SetReadDeadline(time.Time) error  { return errNoDeadline }
func (c *spinConn) SetWriteDeadline(time.Time) error { return errNoDeadline }

var errNoDeadline = errors.New("tcppoll: no deadlines on a spinning connection")
