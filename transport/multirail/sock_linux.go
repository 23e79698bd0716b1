package multirail

import (
	"io"
	"net"
	"sync"
	"syscall"

	"github.com/plexus-hpc/plexus/internal/rawsock"
	"golang.org/x/sys/unix"
)

// A rail's socket out of Go's netpoller. Go registers every socket it
// makes with its epoll set, edge-triggered, and whenever a goroutine of
// the process waits in the netpoller (a comm world's connections) or a
// timer is pending, an idle thread sleeps in epoll_wait: then every
// packet on a rail wakes that thread, even when a polling Recv has
// already read the packet and nobody waits for the descriptor. On a
// machine with few CPUs that wake-up takes the CPU from the spinning
// receiver or from its peer, once per message: about as much again as
// the message's own one-way latency (docs/benchmarks.md, "Rails: a
// rail's socket out of the netpoller"). So the Link keeps a duplicate of
// each rail's descriptor and closes the net.Conn, which takes the
// socket out of the epoll set; pollers read the duplicate without
// blocking, and the rail's reader and writer goroutines wait for it in
// poll(2), a blocking system call that wakes only them.

// sock is a rail's socket descriptor, non-blocking, in no epoll set.
//
// Concurrency contract: read, write, writev, wait and shutdown may be
// called from any goroutines at once (the rail's reader and writer, the
// pollers, the callers that write directly); each holds mu shared for
// the system call, and close takes it exclusively, so a descriptor is
// never closed under a call that uses it, nor used once closed (its
// number may belong to another file by then). Calls blocked in wait
// return once shutdown is called.
type sock struct {
	mu sync.RWMutex
	fd int // -1 once closed
}

// newSock takes c's socket out of the netpoller (rawsock.Detach). It
// returns nil, leaving c alone, where c is not a socket with a
// descriptor.
func newSock(c net.Conn) *sock {
	fd, err := rawsock.Detach(c)
	if err != nil {
		return nil
	}
	return &sock{fd: fd}
}

// read reads what has arrived without blocking: syscall.EAGAIN when
// nothing has, io.EOF at the end of the stream.
func (s *sock) read(p []byte) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.fd < 0 {
		return 0, net.ErrClosed
	}
	for {
		n, err := syscall.Read(s.fd, p)
		switch {
		case isErrno(err, syscall.EINTR):
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// write writes all of p, waiting in poll(2) while the socket's buffer
// is full.
func (s *sock) write(p []byte) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for len(p) > 0 {
		if s.fd < 0 {
			return net.ErrClosed
		}
		n, err := syscall.Write(s.fd, p)
		if err := s.again(err, unix.POLLOUT); err != nil {
			return err
		}
		p = p[max(n, 0):]
	}
	return nil
}

// maxIovecs is the most buffers one writev takes (Linux's IOV_MAX).
const maxIovecs = 1024

// writev writes all of bufs, in order, as write does; it consumes bufs.
func (s *sock) writev(bufs [][]byte) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for len(bufs) > 0 {
		if s.fd < 0 {
			return net.ErrClosed
		}
		n, err := unix.Writev(s.fd, bufs[:min(len(bufs), maxIovecs)])
		if err := s.again(err, unix.POLLOUT); err != nil {
			return err
		}
		bufs = consume(bufs, max(n, 0))
	}
	return nil
}

// again handles a read's or write's error: nil to try again (after
// waiting for events where the socket was not ready), or the error.
// s.mu must be held shared.
func (s *sock) again(err error, events int16) error {
	switch err {
	case nil, syscall.EINTR:
		return nil
	case syscall.EAGAIN:
		return s.waitLocked(events)
	}
	return err
}

// consume drops the first n bytes of bufs.
func consume(bufs [][]byte, n int) [][]byte {
	for len(bufs) > 0 && n >= len(bufs[0]) {
		n -= len(bufs[0])
		bufs[0] = nil
		bufs = bufs[1:]
	}
	if len(bufs) > 0 {
		bufs[0] = bufs[0][n:]
	}
	return bufs
}

// waitReadable blocks until the socket has bytes to read, its stream
// ended or broke, or shutdown was called.
func (s *sock) waitReadable() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.waitLocked(unix.POLLIN)
}

// waitLocked blocks in poll(2) until one of events, a hang-up or an
// error. s.mu must be held shared.
func (s *sock) waitLocked(events int16) error {
	if s.fd < 0 {
		return net.ErrClosed
	}
	return rawsock.Wait(s.fd, events)
}

// shutdown ends both directions of the connection: calls blocked in
// wait return, and reads and writes fail from now on.
func (s *sock) shutdown() {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.fd >= 0 {
		unix.Shutdown(s.fd, unix.SHUT_RDWR)
	}
}

// close shuts the connection down and releases the descriptor, once
// every call using it has returned.
func (s *sock) close() {
	s.shutdown()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fd >= 0 {
		unix.Close(s.fd)
		s.fd = -1
	}
}
