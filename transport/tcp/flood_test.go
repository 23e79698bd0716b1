package tcp

import (
	"context"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// flood opens n connections to addr that never say a word, and keeps them
// open until the test ends.
func flood(t *testing.T, addr string, n int) {
	t.Helper()
	for range n {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("flood: %v", err)
		}
		t.Cleanup(func() { nc.Close() })
	}
}

func (l *logSink) count() int {
	return len(l.Lines(slog.LevelDebug))
}

// TestFloodOfSilentStrangers: hundreds of silent connections, more than
// the acceptor lets handshake at once, do not keep two ranks apart, and
// their refusals write a bounded number of log lines.
func TestFloodOfSilentStrangers(t *testing.T) {
	logs := &logSink{}
	in := newInbox()
	eps, _ := job(t, 2, func(c *Config) {
		c.Logger, c.Deliver, c.HandshakeTimeout = logs.Logger(), in.deliver, time.Second
	})
	start := time.Now()
	flood(t, eps[0].Addr(), 300)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := eps[1].Send(ctx, 0, frame.Header{Kind: frame.Eager, Seq: 1}, []byte("x")); err != nil {
		t.Errorf("rank 1 could not reach rank 0 through the flood: %v", err)
	} else if d := in.wait(t, 1); d[0].h.Seq != 1 {
		t.Errorf("delivered Seq %d", d[0].h.Seq)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the ranks took %v to connect through the flood", d)
	}
	time.Sleep(1500 * time.Millisecond) // the flood's handshakes time out
	if n, limit := logs.count(), 30; n > limit {
		t.Errorf("%d log lines in %v of flood, want at most %d", n, time.Since(start), limit)
	}
}

// TestDialRetriesShedConnections: a dial that the acceptor's side closes
// before answering, as an acceptor shedding a flood does, is tried again.
func TestDialRetriesShedConnections(t *testing.T) {
	in := newInbox()
	eps, _ := job(t, 2, func(c *Config) { c.Deliver, c.HandshakeTimeout = in.deliver, time.Second })
	proxy := sheddingProxy(t, eps[0].Addr(), 3)
	eps[1].cfg.Addrs = func(int) (string, error) { return proxy, nil }
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := eps[1].Send(ctx, 0, frame.Header{Kind: frame.Eager, Seq: 2}, nil); err != nil {
		t.Fatalf("Send after 3 shed connections: %v", err)
	}
	in.wait(t, 1)
}

// sheddingProxy listens on loopback, closes the first shed connections at
// once, and forwards the others to addr.
func sheddingProxy(t *testing.T, addr string, shed int32) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			if n.Add(1) <= shed {
				nc.Close()
				continue
			}
			go forward(t, nc, addr)
		}
	}()
	return ln.Addr().String()
}

func forward(t *testing.T, nc net.Conn, addr string) {
	up, err := net.Dial("tcp", addr)
	if err != nil {
		nc.Close()
		return
	}
	t.Cleanup(func() { nc.Close(); up.Close() })
	go io.Copy(up, nc)
	io.Copy(nc, up)
}

// TestDialRefusedFailsAtOnce: nothing listening at a rank's address means
// the rank is gone; that is not retried.
func TestDialRefusedFailsAtOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	eps, _ := job(t, 2, func(c *Config) {
		c.Heartbeat = time.Second
		c.Addrs = func(int) (string, error) { return dead, nil }
	})
	start := time.Now()
	if err := eps[1].Send(context.Background(), 0, frame.Header{Kind: frame.Eager}, nil); err == nil {
		t.Fatal("Send to a closed port succeeded")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("a refused dial took %v to fail", d)
	}
}
