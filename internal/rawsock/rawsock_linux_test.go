package rawsock

import (
	"errors"
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDetach: the duplicate carries the connection after the net.Conn is
// closed, reads without blocking (EAGAIN when nothing came), and Wait
// returns once bytes arrive; a pipe has no descriptor and stays open.
func TestDetach(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	fd, err := Detach(c)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write on the detached net.Conn: %v, want net.ErrClosed", err)
	}
	buf := make([]byte, 8)
	if _, err := unix.Read(fd, buf); err != unix.EAGAIN {
		t.Errorf("read of an empty socket: %v, want EAGAIN", err)
	}
	if _, err := peer.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := Wait(fd, unix.POLLIN); err != nil {
		t.Fatal(err)
	}
	if n, err := unix.Read(fd, buf); err != nil || string(buf[:n]) != "hello" {
		t.Errorf("read %q, %v; want hello", buf[:n], err)
	}
	x, y := net.Pipe()
	defer y.Close()
	if _, err := Detach(x); !errors.Is(err, ErrNoDescriptor) {
		t.Errorf("Detach of a pipe: %v, want ErrNoDescriptor", err)
	}
	go y.Read(buf)
	if _, err := x.Write([]byte("a")); err != nil {
		t.Errorf("pipe closed by a failed Detach: %v", err)
	}
}

// TestWaitClosed: Wait on a descriptor that is not open says so.
func TestWaitClosed(t *testing.T) {
	fds := make([]int, 2)
	if err := unix.Pipe(fds); err != nil {
		t.Fatal(err)
	}
	unix.Close(fds[0])
	unix.Close(fds[1])
	if err := Wait(fds[0], unix.POLLIN); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Wait on a closed descriptor: %v, want net.ErrClosed", err)
	}
}
