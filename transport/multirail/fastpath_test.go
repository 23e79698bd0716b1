package multirail

import (
	"bytes"
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// tcpPair makes two Links joined by n TCP rails over the loopback
// interface, so that their sockets are taken out of the netpoller (on
// Linux) and, with cfg.Poll, polled by Recv.
func tcpPair(t testing.TB, n int, cfg Config) (a, b *Link) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP: %v", err)
	}
	defer ln.Close()
	var ca, cb []net.Conn
	var ps []rail.Profile
	for i := range n {
		x, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		y, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		ca, cb = append(ca, x), append(cb, y)
		ps = append(ps, linear(t, 10*time.Microsecond, float64(1+i)*100e6))
	}
	if a, err = New(ca, ps, cfg); err != nil {
		t.Fatal(err)
	}
	if b, err = New(cb, ps, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// mixedMessages is small messages with long ones among them: every
// fifth message is long (sliced), the others eager.
func mixedMessages(seed uint64, count, long int) [][]byte {
	msgs := randomMessages(seed, count, 2<<10)
	for i := 2; i < count; i += 5 {
		msgs[i] = randomMessages(seed+uint64(i), 1, long)[0]
		if len(msgs[i]) < long/2 {
			msgs[i] = append(msgs[i], make([]byte, long/2)...)
		}
	}
	return msgs
}

// TestLinkSmallAfterLarge sends eager messages right behind long sliced
// ones on one Link, over real sockets that Recv polls and over the
// in-memory twins, both ways at once: each arrives once, intact, in order,
// although the small ones leave on an idle rail at once while the long
// ones' slices wait for the rails to drain.
func TestLinkSmallAfterLarge(t *testing.T) {
	cfg := Config{Slice: 64 << 10, Ahead: 128 << 10, Poll: true}
	a, b := tcpPair(t, 2, cfg)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); exchange(t, b, a, mixedMessages(5, 40, 1<<20)) }()
	exchange(t, a, b, mixedMessages(3, 60, 1<<20))
	wg.Wait()
	pa, pb := pair(t, 2, cfg, nil)
	exchange(t, pa, pb, mixedMessages(7, 60, 1<<20))
	if st := a.Stats(); st.Chunks[0]+st.Chunks[1] < 60+12*(1<<20)/(64<<10)/2 {
		t.Errorf("sender sent %v chunks: the long messages were not sliced", st.Chunks)
	}
}

// TestLinkEagerRailFails shuts a rail's socket down while small messages,
// which Send does not wait for, are in flight on it: they go again on
// the other rail, the receiver gets each exactly once and in order, and
// Flush sees every one acknowledged.
func TestLinkEagerRailFails(t *testing.T) {
	a, b := tcpPair(t, 2, Config{Poll: true, AckTimeout: 200 * time.Millisecond})
	msgs := randomMessages(23, 2000, 1<<10)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		for i, m := range msgs {
			if i == len(msgs)/2 {
				r := 0 // the rail the small messages go on
				if st := a.Stats(); st.Chunks[1] > st.Chunks[0] {
					r = 1
				}
				a.rails[r].shut() // as a broken link would: its reads and writes fail
			}
			if err := a.Send(ctx, m); err != nil {
				t.Errorf("send %d: %v", i, err)
				return
			}
		}
	}()
	for i, want := range msgs {
		got, err := b.Recv(ctx)
		if err != nil {
			t.Fatalf("receive %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("message %d: %d bytes, not the %d sent", i, len(got), len(want))
		}
	}
	if err := a.Flush(ctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
	if st := a.Stats(); len(st.RailsDown) != 1 {
		t.Errorf("sender %+v: want one rail down", st)
	}
}

// TestLinkSlicesFollowTheRails sends a 4 MiB message over a rail far
// slower than its profile says and a fast one. Planned whole, each
// message gives the slow rail its profile's share (a third); posted a
// slice at a time, each slice split from the rails' unacknowledged bytes
// then, the slow rail, always behind, gets much less. The unacknowledged
// bytes of the sliced Link stay under Ahead, a slice (the room a rail
// about to run dry is given: Link.roomAhead) and the longest slice (a
// slice and a half: the last takes a short tail with it).
func TestLinkSlicesFollowTheRails(t *testing.T) {
	share := func(cfg Config) (float64, int) {
		a, b := pair(t, 2, cfg, func(i, side int, c net.Conn) net.Conn {
			if i == 0 && side == 0 {
				return slowConn{c, time.Millisecond}
			}
			return c
		})
		stop, most := make(chan struct{}), make(chan int)
		go func() {
			m := 0
			for {
				select {
				case <-stop:
					most <- m
					return
				default:
				}
				a.mu.Lock()
				m = max(m, a.unackedTotal())
				a.mu.Unlock()
				time.Sleep(50 * time.Microsecond)
			}
		}()
		msg := make([]byte, 4<<20)
		for i := range msg {
			msg[i] = byte(i * 7 / 3)
		}
		exchange(t, a, b, [][]byte{msg})
		close(stop)
		st := a.Stats()
		return float64(st.Bytes[0]) / float64(st.Bytes[0]+st.Bytes[1]), <-most
	}
	whole, _ := share(Config{Slice: -1, Split: SplitPlexus})
	sliced, most := share(Config{Slice: 64 << 10, Ahead: 128 << 10, Split: SplitPlexus})
	if whole < 0.25 || sliced > whole/2 {
		t.Errorf("slow rail's share %.2f whole, %.2f sliced: want about a third whole, under half that sliced", whole, sliced)
	}
	if most >= 128<<10+64<<10+96<<10 {
		t.Errorf("sliced: %d bytes unacknowledged at most, want under Ahead and two slices and a half (%d)", most, 288<<10)
	}
}
