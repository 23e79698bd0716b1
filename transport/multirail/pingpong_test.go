package multirail

import (
	"context"
	"fmt"
	"io"
	"net"
	"testing"
)

// BenchmarkPingPong times a round trip of a small message between two
// Links over loopback TCP rails, Recv polling, with the plexus split
// (whole on one rail: the eager path) and iso (two chunks, acknowledged
// before Send returns), against the same round trip over one bare TCP
// connection: the Link's own cost per message.
func BenchmarkPingPong(b *testing.B) {
	for _, size := range []int{4, 1024, 4096} {
		for _, split := range []Split{SplitPlexus, SplitIso} {
			b.Run(fmt.Sprintf("impl=link/split=%d/size=%d", split, size), func(b *testing.B) {
				benchLinkPingPong(b, split, size)
			})
		}
		b.Run(fmt.Sprintf("impl=tcp/size=%d", size), func(b *testing.B) {
			benchTCPPingPong(b, size)
		})
	}
}

func benchLinkPingPong(b *testing.B, split Split, size int) {
	x, y := tcpPair(b, 2, Config{Poll: true, Split: split})
	ctx := context.Background()
	go echoLink(ctx, y, false)
	msg := make([]byte, size)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := x.Send(ctx, msg); err != nil {
			b.Fatal(err)
		}
		if _, err := x.Recv(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func benchTCPPingPong(b *testing.B, size int) {
	c, s := loopbackConns(b)
	defer c.Close()
	defer s.Close()
	go func() {
		buf := make([]byte, size)
		for {
			if _, err := io.ReadFull(s, buf); err != nil {
				return
			}
			if _, err := s.Write(buf); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, size)
	b.ResetTimer()
	for range b.N {
		if _, err := c.Write(buf); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPingPongAllocs pins the small-message path's allocations: a round
// trip of a short message between two Links (both sides, all their
// goroutines) allocates only the two messages received, with a little
// slack for the lazy acknowledgements' timer and the runtime, at a size
// copied into the record and at one copied into the record's own
// buffer: the records and copies of messages sent are recycled
// (recycle.go); the counts before those changes are in
// docs/benchmarks.md ("Rails: a small message allocates only its record").
//
// With both sides releasing what they receive (Link.Release), a round
// trip allocates next to nothing.
func TestPingPongAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("-race: allocation counts are the detector's")
	}
	for _, release := range []bool{false, true} {
		for _, size := range []int{16, 1 << 10} {
			most := 3.0
			if release {
				most = 1
			}
			if n := pingPongAllocs(t, size, release); n > most {
				t.Errorf("%.1f allocations a round trip of %d bytes, releasing %v, want at most %v", n, size, release, most)
			}
		}
	}
}

// pingPongAllocs is the allocations of a round trip of size bytes
// between two Links, the messages received released or not.
func pingPongAllocs(t *testing.T, size int, release bool) float64 {
	x, y := tcpPair(t, 2, Config{Poll: true})
	ctx := context.Background()
	go echoLink(ctx, y, release)
	msg := make([]byte, size)
	roundTrip := func() {
		if err := x.Send(ctx, msg); err != nil {
			t.Fatal(err)
		}
		m, err := x.Recv(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if release {
			x.Release(m)
		}
	}
	for range 100 { // the queues, maps and free lists grow to their steady size
		roundTrip()
	}
	return testing.AllocsPerRun(500, roundTrip)
}

// echoLink sends back every message y receives, releasing each after
// when release is set, until a Recv or Send fails.
func echoLink(ctx context.Context, y *Link, release bool) {
	for {
		m, err := y.Recv(ctx)
		if err != nil || y.Send(ctx, m) != nil {
			return
		}
		if release {
			y.Release(m)
		}
	}
}

// loopbackConns is a connected pair of loopback TCP connections, the
// caller's to close; it skips where there is no loopback TCP.
func loopbackConns(t testing.TB) (net.Conn, net.Conn) {
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
		c.Close()
		t.Fatal(err)
	}
	return c, s
}
