package tcp

import (
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Detaching. Go's netpoller watches every socket of a net.Conn: while any
// goroutine of the process is parked in it (the Endpoint's Accept always
// is), an idle thread sleeps in epoll_wait and is woken by every segment
// that arrives on any watched socket, even when no goroutine waits for
// that one. On a small machine that wake-up competes with the goroutine
// that polls the socket for the same segment, and a loopback ping-pong
// that spins on non-blocking reads is markedly slower with its socket in
// the netpoller once a goroutine is parked in Accept (docs/benchmarks.md,
// section "TCP transport out of Go's netpoller", 2026-11-22).
//
// So on Linux a started connection takes its socket out: it duplicates
// the descriptor and closes the net.Conn, which removes the original from
// the netpoller's epoll set and leaves the socket open through the
// duplicate. From then on Poll reads it with non-blocking read(2) as
// before. The reader goroutine, when it must wait, registers another
// duplicate with the netpoller (read), and takes it out again when it
// stands aside for a poller (rest), so the socket is watched by the
// netpoller only while no goroutine polls it. A
// writer waiting for room blocks its thread in poll(2) on the descriptor,
// as direct writes always did (write.go). An Endpoint detaches at most
// maxDetached connections and leaves the rest in the netpoller.

// maxDetached bounds the connections per Endpoint taken out of the
// netpoller, and with them the threads that writers waiting for room may
// block in poll(2).
const maxDetached = 64

// waitSlice bounds one poll(2), so that a waiter re-checks the deadline
// and abort even if no wake-up came (none is needed: shutdown(2) wakes it).
const waitSlice = 100 // milliseconds

// detach takes nc's socket out of the netpoller and returns it as a
// rawSock, or ok=false (nc untouched) if it cannot.
func detach(nc net.Conn, rc syscall.RawConn) (s sock, ok bool) {
	fd, derr := -1, error(nil)
	if err := rc.Control(func(f uintptr) { fd, derr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); err != nil || derr != nil {
		return nil, false
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, false
	}
	nc.Close() // the duplicate keeps the socket open
	return &rawSock{fd: fd, refs: 2}, true
}

// rawSock is a socket descriptor outside the netpoller. Its reader waits
// in the netpoller through a duplicate (read); writers block the calling
// thread in poll(2) (wait). See sock for who may call what.
//
// Invariant: fd is open until the second release; abort and closeWrite
// touch it only under mu and only while it is open, so they never reach
// a descriptor number the process has reused.
type rawSock struct {
	fd       int
	deadline atomic.Int64 // UnixNano; 0 for none
	aborted  atomic.Bool

	mu       sync.Mutex
	refs     int      // loops still using fd
	closed   bool     // fd is closed
	watching *os.File // read's registered duplicate, until rest
}

// read waits in the netpoller, through a duplicate descriptor that stays
// registered from the first wait until rest: the reader goroutine waits
// only when nobody polls, and a goroutine the netpoller wakes runs at
// once, whereas a thread blocked in poll(2) keeps its P until sysmon
// takes it back, and the goroutine it wakes waits that long: a ping-pong
// of sleepers took about twice as long so (same section as Detaching).
func (s *rawSock) read(f func(fd uintptr) bool) error {
	if f(uintptr(s.fd)) {
		return nil
	}
	w, err := s.watch()
	if err != nil {
		return err
	}
	rc, err := w.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Read(f)
}

// watch returns the duplicate of fd registered with the netpoller, under
// the current deadline, registering it if needed.
func (s *rawSock) watch() (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.aborted.Load() {
		return nil, net.ErrClosed
	}
	if s.watching != nil {
		return s.watching, nil
	}
	fd, err := unix.FcntlInt(uintptr(s.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	w := os.NewFile(uintptr(fd), "tcp") // non-blocking, so the netpoller takes it
	if d := s.deadline.Load(); d != 0 {
		w.SetReadDeadline(time.Unix(0, d))
	}
	s.watching = w
	return w, nil
}

// rest takes the duplicate out of the netpoller, if read registered one,
// so that arriving segments wake nobody while goroutines poll.
func (s *rawSock) rest() {
	s.mu.Lock()
	w := s.watching
	s.watching = nil
	s.mu.Unlock()
	if w != nil {
		w.Close()
	}
}

func (s *rawSock) write(f func(fd uintptr) bool) error {
	for !f(uintptr(s.fd)) {
		if err := s.wait(unix.POLLOUT); err != nil {
			return err
		}
	}
	return nil
}

func (s *rawSock) control(f func(fd uintptr)) error {
	f(uintptr(s.fd))
	return nil
}

func (s *rawSock) Write(p []byte) (int, error) {
	sent := 0
	for sent < len(p) {
		n, err := unix.Write(s.fd, p[sent:])
		switch {
		case err == unix.EAGAIN:
			if err := s.wait(unix.POLLOUT); err != nil {
				return sent, err
			}
		case err == unix.EINTR:
		case err != nil:
			return sent, err
		default:
			sent += n
		}
	}
	return sent, nil
}

// wait blocks until the socket has one of events (or is shut down), the
// deadline passes, or the socket is aborted.
func (s *rawSock) wait(events int16) error {
	pfd := []unix.PollFd{{Fd: int32(s.fd), Events: events}}
	for {
		if s.aborted.Load() {
			return net.ErrClosed
		}
		ms := waitSlice
		if d := s.deadline.Load(); d != 0 {
			left := time.Until(time.Unix(0, d))
			if left <= 0 {
				return os.ErrDeadlineExceeded
			}
			ms = min(ms, int((left+time.Millisecond-1)/time.Millisecond))
		}
		n, err := unix.Poll(pfd, ms)
		switch {
		case err == unix.EINTR:
		case err != nil:
			return err
		case n > 0:
			return nil
		}
	}
}

func (s *rawSock) setDeadline(t time.Time) {
	var d int64
	if !t.IsZero() {
		d = max(t.UnixNano(), 1)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deadline.Store(d)
	if s.watching != nil {
		s.watching.SetReadDeadline(t)
	}
}

func (s *rawSock) closeWrite() { s.shutdown(unix.SHUT_WR) }

func (s *rawSock) abort() {
	s.aborted.Store(true)
	s.shutdown(unix.SHUT_RDWR)
}

func (s *rawSock) shutdown(how int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		unix.Shutdown(s.fd, how)
	}
}

func (s *rawSock) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refs--; s.refs == 0 {
		s.closed = true
		if s.watching != nil {
			s.watching.Close()
			s.watching = nil
		}
		unix.Close(s.fd)
	}
}

// setUserTimeout sets TCP_USER_TIMEOUT on the socket (Config.UserTimeout).
// A failure leaves the system's default, which only detects later.
func setUserTimeout(rc syscall.RawConn, d time.Duration) {
	rc.Control(func(fd uintptr) {
		unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(d.Milliseconds()))
	})
}
