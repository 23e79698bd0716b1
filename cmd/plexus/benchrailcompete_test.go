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

// TestCompetitorStops: a competing flow writes until stopped, then its
// connection closes (the reader meets the end of the stream), and stop
// may be called again; a competitor without a connection stops at once.
func TestCompetitorStops(t *testing.T) {
	c, s := loopbackPair(t)
	var got atomic.Int64
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, countingReader{s, &got})
		ended <- err
	}()
	k := startCompeting(c)
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
	competeIf(nil).stop()
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
