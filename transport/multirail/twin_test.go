package multirail

import (
	"bytes"
	"context"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// The twin rails are in-memory connections (net.Pipe), wrapped to be
// slow, to break, to lose acknowledgements or to corrupt bytes, so that
// reassembly and failover can be driven deterministically in one process.

// slowConn sleeps before each write: its rail delivers after the others.
type slowConn struct {
	net.Conn
	delay time.Duration
}

func (c slowConn) Write(b []byte) (int, error) { time.Sleep(c.delay); return c.Conn.Write(b) }

// breakConn fails (closing the connection) once after bytes written.
type breakConn struct {
	net.Conn
	after   int64
	written atomic.Int64
}

func (c *breakConn) Write(b []byte) (int, error) {
	if c.written.Add(int64(len(b))) > c.after {
		c.Conn.Close()
		return 0, net.ErrClosed
	}
	return c.Conn.Write(b)
}

// muteConn swallows everything written: the peer never hears of it.
type muteConn struct{ net.Conn }

func (c muteConn) Write(b []byte) (int, error) { return len(b), nil }

// flipConn flips one bit in the first large write that passes it.
type flipConn struct {
	net.Conn
	done atomic.Bool
}

func (c *flipConn) Write(b []byte) (int, error) {
	if len(b) > 1000 && c.done.CompareAndSwap(false, true) {
		b = append([]byte(nil), b...)
		b[len(b)/2] ^= 0x10
	}
	return c.Conn.Write(b)
}

// pair makes two Links joined by n pipe rails; wrap may replace either
// end's conn of rail i (side 0 is a's, 1 is b's).
func pair(t *testing.T, n int, cfg Config, wrap func(i, side int, c net.Conn) net.Conn) (a, b *Link) {
	t.Helper()
	var ca, cb []net.Conn
	var ps []rail.Profile
	for i := range n {
		x, y := net.Pipe()
		if wrap != nil {
			x, y = wrap(i, 0, x), wrap(i, 1, y)
		}
		ca, cb = append(ca, x), append(cb, y)
		ps = append(ps, linear(t, 10*time.Microsecond, float64(1+i)*100e6))
	}
	a, err := New(ca, ps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err = New(cb, ps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// randomMessages makes count messages of up to max bytes, some empty.
func randomMessages(seed uint64, count, max int) [][]byte {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	msgs := make([][]byte, count)
	for i := range msgs {
		msgs[i] = make([]byte, rng.IntN(max+1))
		for k := range msgs[i] {
			msgs[i][k] = byte(rng.Uint32())
		}
	}
	return msgs
}

// exchange sends msgs from a to b while b receives, and fails unless b
// gets each exactly once, intact and in order.
func exchange(t *testing.T, a, b *Link, msgs [][]byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i, m := range msgs {
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
	wg.Wait()
}

// TestLinkInOrder sends messages of every size over three rails, one of
// them slow so that chunks arrive out of order, both ways at once.
func TestLinkInOrder(t *testing.T) {
	for _, s := range []Split{SplitPlexus, SplitIso, SplitWeighted, SplitSingle} {
		a, b := pair(t, 3, Config{Split: s}, func(i, side int, c net.Conn) net.Conn {
			if i == 0 {
				return slowConn{c, 200 * time.Microsecond}
			}
			return c
		})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); exchange(t, b, a, randomMessages(9, 40, 200<<10)) }()
		exchange(t, a, b, randomMessages(7, 60, 300<<10))
		wg.Wait()
		if st := a.Stats(); len(st.RailsDown) != 0 || st.Resent != 0 {
			t.Errorf("split %d: %+v", s, st)
		}
	}
}

// TestLinkRailBreaks breaks rail 1 in the middle of a transfer: its
// chunks go again on the others, every message arrives once, and the
// failure is reported.
func TestLinkRailBreaks(t *testing.T) {
	var downs atomic.Int32
	cfg := Config{RailDown: func(int, error) { downs.Add(1) }}
	a, b := pair(t, 3, cfg, func(i, side int, c net.Conn) net.Conn {
		if i == 1 && side == 0 {
			return &breakConn{Conn: c, after: 3 << 20}
		}
		return c
	})
	exchange(t, a, b, randomMessages(11, 40, 1<<20))
	st := a.Stats()
	if len(st.RailsDown) != 1 || st.RailsDown[0] != 1 || st.Resent == 0 || downs.Load() == 0 {
		t.Errorf("stats %+v, %d reports: want rail 1 down, chunks resent, reported", st, downs.Load())
	}
}

// TestLinkLostAcks loses every acknowledgement on rail 0: its chunks
// time out and go again on rail 1, the receiver drops the copies it
// already has, and nothing arrives twice.
func TestLinkLostAcks(t *testing.T) {
	a, b := pair(t, 2, Config{AckTimeout: 50 * time.Millisecond, Split: SplitIso}, func(i, side int, c net.Conn) net.Conn {
		if i == 0 && side == 1 {
			return muteConn{c}
		}
		return c
	})
	exchange(t, a, b, randomMessages(13, 10, 256<<10))
	if st, sb := a.Stats(), b.Stats(); len(st.RailsDown) != 1 || st.Resent == 0 || sb.Duplicates == 0 {
		t.Errorf("sender %+v, receiver %+v: want rail 0 down, resent, duplicates dropped", st, sb)
	}
}

// TestLinkCorruptChunk flips a bit on rail 0: the receiver refuses the
// rail, the chunk goes again on rail 1, and the message arrives intact.
func TestLinkCorruptChunk(t *testing.T) {
	a, b := pair(t, 2, Config{AckTimeout: 100 * time.Millisecond, Split: SplitIso}, func(i, side int, c net.Conn) net.Conn {
		if i == 0 && side == 0 {
			return &flipConn{Conn: c}
		}
		return c
	})
	exchange(t, a, b, randomMessages(17, 5, 128<<10))
	if sb := b.Stats(); len(sb.RailsDown) != 1 || sb.RailsDown[0] != 0 {
		t.Errorf("receiver %+v: want rail 0 refused", sb)
	}
}

// TestLinkAllRailsDown: with every rail gone, Send and Recv fail with
// ErrRailsDown instead of waiting.
func TestLinkAllRailsDown(t *testing.T) {
	a, b := pair(t, 2, Config{}, nil)
	exchange(t, a, b, randomMessages(19, 3, 1000))
	for _, rc := range b.rails {
		rc.conn.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := b.Recv(ctx); !errorsIs(err, ErrRailsDown) {
		t.Errorf("receive: %v, want ErrRailsDown", err)
	}
	if err := a.Send(ctx, make([]byte, 100<<10)); !errorsIs(err, ErrRailsDown) {
		t.Errorf("send: %v, want ErrRailsDown", err)
	}
}
