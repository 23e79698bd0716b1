package tcp

import (
	"io"
	"net"
	"syscall"
	"time"
)

// sock is how a started connection reaches its socket. Two kinds exist:
// netSock, the net.Conn as dialled or accepted, waited on by Go's
// netpoller (every platform, and every connection before it starts), and
// on Linux rawSock (sock_linux.go), the same socket taken out of the
// netpoller once the handshake is over, so that arriving segments wake
// no idle thread of the process while a goroutine polls it (see detach).
//
// Concurrency: read is called only by the reader goroutine, holding
// nothing, and so is rest; control only by the holder of the connection's
// rmu or wmu, write and Write only by the holder of its wmu;
// setDeadline, closeWrite and abort may be called by anyone, and abort
// wakes goroutines blocked in the others. release is called once by each
// of the connection's two loops as it exits; a rawSock closes its
// descriptor after both, and abort and closeWrite do nothing after that.
type sock interface {
	// Writer writes p, waiting for space in the socket; it is the
	// buffered writer's sink for queued frames.
	io.Writer
	// read calls f with the descriptor until f returns true, waiting for
	// the socket to become readable whenever f returns false
	// (syscall.RawConn.Read's contract).
	read(f func(fd uintptr) bool) error
	// control calls f with the descriptor once, without waiting.
	control(f func(fd uintptr)) error
	// write calls f with the descriptor until f returns true, waiting for
	// room whenever it returns false (syscall.RawConn.Write's contract).
	write(f func(fd uintptr) bool) error
	// setDeadline bounds every later wait in read, write and Write.
	setDeadline(t time.Time)
	// closeWrite sends FIN after the bytes written.
	closeWrite()
	// abort closes the connection (or, for a rawSock, shuts it down,
	// which wakes its waiters; the descriptor is closed by release).
	abort()
	// release says one of the connection's loops is done with the socket.
	release()
	// rest says the reader goroutine stands aside for pollers: the socket
	// need not be watched until read is called again.
	rest()
}

// netSock is a net.Conn and its descriptor access.
type netSock struct {
	nc net.Conn
	rc syscall.RawConn
}

func (s netSock) Write(p []byte) (int, error)         { return s.nc.Write(p) }
func (s netSock) read(f func(fd uintptr) bool) error  { return s.rc.Read(f) }
func (s netSock) write(f func(fd uintptr) bool) error { return s.rc.Write(f) }
func (s netSock) setDeadline(t time.Time)             { s.nc.SetDeadline(t) }
func (s netSock) abort()                              { s.nc.Close() }
func (s netSock) release()                            {}
func (s netSock) rest()                               {}

func (s netSock) control(f func(fd uintptr)) error { return s.rc.Control(f) }

func (s netSock) closeWrite() {
	if tc, ok := s.nc.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
		return
	}
	s.nc.Close()
}
