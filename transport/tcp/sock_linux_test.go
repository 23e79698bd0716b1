package tcp

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
	"golang.org/x/sys/unix"
)

func (s *rawSock) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// TestDetachedSocket: on Linux both ends of a connection leave the
// netpoller once it starts: the net.Conn is closed, the duplicate
// descriptor carries the traffic with TCP_NODELAY on, and Close closes
// it.
func TestDetachedSocket(t *testing.T) {
	check := newSeqCheck()
	eps, _ := job(t, 2, func(c *Config) { c.Deliver = check.deliver })
	for i := range uint64(100) {
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Seq: i}, seqPayload(i)); err != nil {
			t.Fatal(err)
		}
	}
	check.wait(t, 100)
	var socks []*rawSock
	for r, e := range eps {
		c := e.peers[1-r].c.Load()
		s, ok := c.sock().(*rawSock)
		if !ok {
			t.Fatalf("rank %d: %T, want a detached *rawSock", r, c.sock())
		}
		if _, err := c.nc.Write([]byte{0}); !errors.Is(err, net.ErrClosed) {
			t.Errorf("rank %d: the net.Conn still writes (%v), so it is still in the netpoller", r, err)
		}
		if v, err := unix.GetsockoptInt(s.fd, unix.IPPROTO_TCP, unix.TCP_NODELAY); err != nil || v == 0 {
			t.Errorf("rank %d: TCP_NODELAY = %d (%v), want on", r, v, err)
		}
		socks = append(socks, s)
	}
	for _, e := range eps {
		e.Close()
	}
	for r, s := range socks {
		if !s.isClosed() {
			t.Errorf("rank %d: descriptor open after Close", r)
		}
	}
}

// TestDetachLimit: past maxDetached an Endpoint leaves its connections in
// the netpoller, and both kinds carry frames side by side.
func TestDetachLimit(t *testing.T) {
	check := newSeqCheck()
	eps, _ := job(t, 3, func(c *Config) { c.Deliver = check.deliver })
	eps[0].detachLeft.Store(1)
	for peer := 1; peer <= 2; peer++ {
		for i := range uint64(60) {
			if err := eps[0].Send(context.Background(), peer, frame.Header{Kind: frame.Eager, Tag: int32(peer), Seq: i}, seqPayload(i)); err != nil {
				t.Fatal(err)
			}
		}
		checkSock(t, eps[0], peer, peer == 1)
	}
	check.wait(t, 120)
}

func (s *rawSock) watched() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watching != nil
}

// TestDetachedWatch: a detached socket is in the netpoller (through its
// duplicate) while its reader goroutine waits, and out of it while a
// goroutine polls.
func TestDetachedWatch(t *testing.T) {
	check := newSeqCheck()
	eps, _ := job(t, 2, func(c *Config) { c.Deliver = check.deliver })
	send := func(i uint64) {
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Seq: i}, seqPayload(i)); err != nil {
			t.Fatal(err)
		}
	}
	send(0)
	check.wait(t, 1)
	s, ok := eps[1].peers[0].c.Load().sock().(*rawSock)
	if !ok {
		t.Fatalf("not detached")
	}
	waitUntil(t, "the idle reader to watch the socket", s.watched)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				eps[1].Poll(0)
			}
		}
	}()
	// Each frame may wake the reader, which then stands aside — unless the
	// poller took the frame first; so send until one does.
	i := uint64(1)
	waitUntil(t, "the reader to stop watching while a goroutine polls", func() bool {
		if !s.watched() {
			return true
		}
		send(i)
		i++
		time.Sleep(time.Millisecond)
		return false
	})
	close(stop)
	<-done
	eps[1].PollDone(0)
	waitUntil(t, "the reader to watch again after PollDone", s.watched)
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestUserTimeout: Config.UserTimeout reaches both ends' sockets as
// TCP_USER_TIMEOUT, and without it the system default (0) stays.
func TestUserTimeout(t *testing.T) {
	for _, want := range []time.Duration{0, 1500 * time.Millisecond} {
		check := newSeqCheck()
		eps, _ := job(t, 2, func(c *Config) { c.Deliver, c.UserTimeout = check.deliver, want })
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, seqPayload(0)); err != nil {
			t.Fatal(err)
		}
		check.wait(t, 1)
		for r, e := range eps {
			s, ok := e.peers[1-r].c.Load().sock().(*rawSock)
			if !ok {
				t.Fatalf("rank %d: not a detached socket", r)
			}
			if v, err := unix.GetsockoptInt(s.fd, unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT); err != nil || v != int(want.Milliseconds()) {
				t.Errorf("UserTimeout %v, rank %d: TCP_USER_TIMEOUT = %d ms (%v)", want, r, v, err)
			}
		}
	}
}
