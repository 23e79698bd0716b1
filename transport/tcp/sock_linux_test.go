package tcp

import (
	"context"
	"errors"
	"net"
	"testing"

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
		if err := eps[0].Send(context.Background(), 1, Header{Kind: Eager, Seq: i}, seqPayload(i)); err != nil {
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
			if err := eps[0].Send(context.Background(), peer, Header{Kind: Eager, Tag: int32(peer), Seq: i}, seqPayload(i)); err != nil {
				t.Fatal(err)
			}
		}
		checkSock(t, eps[0], peer, peer == 1)
	}
	check.wait(t, 120)
}
