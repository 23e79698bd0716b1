package multirail

import (
	"context"
	"errors"
	"net"
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
