package multirail

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"testing"
	"time"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// TestHandshake: the same secret passes both ways; with another, the
// dialer finds the acceptor's proof wrong and leaves without its own.
func TestHandshake(t *testing.T) {
	for _, c := range []struct {
		a, b string
		ok   bool
	}{{"s3cret", "s3cret", true}, {"s3cret", "guess", false}} {
		x, y := net.Pipe()
		errs := make(chan error, 1)
		go func() { errs <- Handshake(y, []byte(c.b), false, time.Second) }()
		ea := Handshake(x, []byte(c.a), true, time.Second)
		x.Close()
		eb := <-errs
		if c.ok != (ea == nil) || c.ok != (eb == nil) || (!c.ok && !errors.Is(ea, ErrAuth)) {
			t.Errorf("secrets %q/%q: dialer %v, acceptor %v", c.a, c.b, ea, eb)
		}
		y.Close()
	}
}

// TestSample samples a pipe: one sample per size, times positive and
// not falling much as sizes grow a thousandfold.
func TestSample(t *testing.T) {
	x, y := net.Pipe()
	defer x.Close()
	go Echo(y)
	s, err := Sample(context.Background(), x, SampleConfig{Sizes: []int{4, 4096, 4 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 3 || s[0].Size != 4 || s[2].Size != 4<<20 || s[0].Time <= 0 || s[2].Time < s[0].Time {
		t.Errorf("samples %+v", s)
	}
}

// pingCounter counts the ping-pong requests written through it: a
// write of one whole request (header and n bytes) whose count is 1.
type pingCounter struct {
	net.Conn
	mu    sync.Mutex
	pings map[int]int // by size
}

func (c *pingCounter) Write(b []byte) (int, error) {
	if len(b) > 8 && binary.LittleEndian.Uint32(b[4:]) == 1 && int(binary.LittleEndian.Uint32(b)) == len(b)-8 {
		c.mu.Lock()
		c.pings[len(b)-8]++
		c.mu.Unlock()
	}
	return c.Conn.Write(b)
}

// TestSampleReps: small sizes take at least smallReps round trips, the
// fastest kept, since their spread is the machine's wake-ups; larger
// ones take Reps.
func TestSampleReps(t *testing.T) {
	x, y := net.Pipe()
	defer x.Close()
	go Echo(y)
	c := &pingCounter{Conn: x, pings: map[int]int{}}
	sizes := []int{4, smallSample, smallSample + 1, 1 << 20}
	if _, err := Sample(context.Background(), c, SampleConfig{Sizes: sizes, Reps: 5}); err != nil {
		t.Fatal(err)
	}
	want := map[int]int{4: smallReps, smallSample: smallReps, smallSample + 1: 5, 1 << 20: 5}
	for _, n := range sizes {
		if c.pings[n] != want[n] {
			t.Errorf("%d round trips of %d B, want %d", c.pings[n], n, want[n])
		}
	}
}

// writeCounter counts the writes through it.
type writeCounter struct {
	net.Conn
	writes int
}

func (c *writeCounter) Write(b []byte) (int, error) {
	c.writes++
	return c.Conn.Write(b)
}

// TestStreamPacksMessages: a stream sample of short messages goes
// several to a write, up to streamWrite bytes, so that it times the
// rail and not the system calls; a long message still goes alone.
func TestStreamPacksMessages(t *testing.T) {
	x, y := net.Pipe()
	defer x.Close()
	go Echo(y)
	for _, c := range []struct{ n, count, writes int }{
		{16, 1024, 1 + 1},                      // the header, then 16 KiB at once
		{1 << 10, 1024, 1 + 1<<20/streamWrite}, // 1 MiB in writes of streamWrite
		{streamWrite, 4, 1 + 4},                // one message a write
		{3 << 10, 30, 1 + 2},                   // 21 messages a write: 21, then 9
	} {
		w := &writeCounter{Conn: x}
		if _, err := stream(w, c.n, c.count); err != nil {
			t.Fatal(err)
		}
		if w.writes != c.writes {
			t.Errorf("a stream of %d messages of %d B: %d writes, want %d", c.count, c.n, w.writes, c.writes)
		}
	}
	x.Write(make([]byte, 8)) // Echo's end
}

// FuzzParseHeader: no header makes parseHeader panic, and what it
// accepts describes a chunk inside its message.
func FuzzParseHeader(f *testing.F) {
	b := make([]byte, headerLen)
	header{kind: kindData, len: 10, msg: 1, off: 5, total: 20}.put(b)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < headerLen {
			return
		}
		h, err := parseHeader(b[:headerLen], 1<<20)
		if err != nil {
			return
		}
		if h.total > 1<<20 || h.off+uint64(h.len) > h.total {
			t.Fatalf("accepted %+v", h)
		}
	})
}

// bucketConn passes writes as a token bucket does (Linux tc tbf): up to
// burst bytes at once, then rate bytes a second. Unlike tbf it refills
// only while a writer waits for tokens, not while the line is idle: so
// a stall of the test's machine between two streams cannot refill the
// burst and make the second one look faster than the rate, and the
// only burst a sample can meet is the one it starts with.
type bucketConn struct {
	net.Conn
	rate   float64
	mu     sync.Mutex
	tokens float64
}

func (c *bucketConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.tokens -= float64(len(b))
	var wait time.Duration
	if c.tokens < 0 {
		wait = time.Duration(-c.tokens / c.rate * 1e9)
		c.tokens = 0 // the wait earns exactly the deficit
	}
	c.mu.Unlock()
	if wait > 0 {
		time.Sleep(wait)
	}
	return c.Conn.Write(b)
}

// TestSampleSpendsTheBurst samples a rail shaped as a token bucket with
// a burst of eight messages and streams of eight: the sample is the
// bucket's sustained rate, not the faster one of a stream that began
// with the burst (a sampler that times its first stream measured a
// fifth of the rate's time per message).
func TestSampleSpendsTheBurst(t *testing.T) {
	const n, rate = 64 << 10, 50e6
	x, y := net.Pipe()
	defer x.Close()
	go Echo(y)
	shaped := &bucketConn{Conn: x, rate: rate, tokens: 8 * n}
	s, err := Sample(context.Background(), shaped, SampleConfig{Sizes: []int{n}, Reps: 1, StreamBytes: 8 * n})
	if err != nil {
		t.Fatal(err)
	}
	// A lower bound only: a busy machine makes every time longer.
	if want := time.Duration(0.85 * n / rate * 1e9); s[0].Time < want {
		t.Errorf("sampled %v per %d-byte message; the sustained rate gives %v", s[0].Time, n, time.Duration(n/rate*1e9))
	}
}
