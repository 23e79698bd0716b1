package main

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/rail"
	"github.com/plexus-hpc/plexus/transport/multirail"
)

// TestCompetitorStops: a competing flow's source, a process of its own,
// writes nothing until started and then until stopped, when its
// connection closes (the reader meets the end of the stream); stop may be
// called again; a competitor without a flow stops at once.
func TestCompetitorStops(t *testing.T) {
	c, s := loopbackPair(t)
	var got atomic.Int64
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, countingReader{s, &got})
		ended <- err
	}()
	p, err := newFlowProc(c, false)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := got.Load(); n != 0 {
		t.Fatalf("the flow sent %d bytes before it was started", n)
	}
	k, err := startCompeting(p)
	if err != nil {
		t.Fatal(err)
	}
	for got.Load() < 4<<20 {
		time.Sleep(time.Millisecond)
	}
	k.stop()
	k.stop()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("the reader's end of the flow: %v, want the end of the stream", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the flow's connection did not close after stop")
	}
	if k, err := competeIf(nil); err != nil {
		t.Fatal(err)
	} else {
		k.stop()
	}
}

// TestFlowSink: a flow's sink process reads and discards all that comes
// until the writer closes, and closing it then reports no error.
func TestFlowSink(t *testing.T) {
	c, s := loopbackPair(t)
	p, err := newFlowProc(s, true)
	if err != nil {
		t.Fatal(err)
	}
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 1<<20)
	for range 128 { // far more than the sockets' buffers hold
		if _, err := c.Write(buf); err != nil {
			t.Fatalf("writing to the sink: %v", err)
		}
	}
	c.Close()
	if err := p.Close(); err != nil {
		t.Errorf("closing the sink: %v", err)
	}
	if _, err := newFlowProc(nil, true); err == nil {
		t.Error("a flow on no socket started")
	}
}

// TestStreamLinkHalf: streamLink calls half exactly once in a case of n
// messages, and all n arrive.
func TestStreamLinkHalf(t *testing.T) {
	for _, n := range []int{1, 4, 7} {
		ca, cb := loopbackPair(t)
		p, err := rail.NewProfile("lo", []rail.Sample{{Size: 1 << 20, Time: time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		cfg := multirail.Config{Window: 8 << 20}
		x, err := multirail.New([]net.Conn{ca}, []rail.Profile{p}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		y, err := multirail.New([]net.Conn{cb}, []rail.Profile{p}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var received, calls atomic.Int64
		go func() {
			for {
				if _, err := y.Recv(ctx); err != nil {
					return
				}
				received.Add(1)
			}
		}()
		called := make(chan struct{}, n)
		half := func() { calls.Add(1); called <- struct{}{} }
		if err := streamLink(ctx, x, make([]byte, 256<<10), n, half); err != nil {
			t.Fatal(err)
		}
		<-called // half runs on a goroutine of its own
		for received.Load() < int64(n) {
			time.Sleep(time.Millisecond)
		}
		x.Close()
		y.Close()
		if c := calls.Load(); c != 1 {
			t.Errorf("n=%d: half called %d times, want once", n, c)
		}
	}
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// loopbackPair is a connected pair of loopback TCP connections, closed
// when the test ends.
func loopbackPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP: %v", err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return c, s
}
