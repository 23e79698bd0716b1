package tcp

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// inbox collects delivered frames.
type inbox struct {
	mu     sync.Mutex
	frames []delivered
	ch     chan struct{}
}

type delivered struct {
	peer    int
	h       frame.Header
	payload []byte
}

func newInbox() *inbox { return &inbox{ch: make(chan struct{}, 1<<16)} }

func (in *inbox) deliver(peer int, h frame.Header, p []byte) {
	in.mu.Lock()
	in.frames = append(in.frames, delivered{peer, h, bytes.Clone(p)})
	in.mu.Unlock()
	in.ch <- struct{}{}
}

func (in *inbox) wait(t *testing.T, n int) []delivered {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for range n {
		select {
		case <-in.ch:
		case <-timeout:
			t.Fatalf("timed out waiting for frame %d of %d", len(in.frames)+1, n)
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.frames
}

func TestSendDeliver(t *testing.T) {
	in := newInbox()
	eps, _ := job(t, 2, func(c *Config) { c.Deliver = in.deliver })
	h := frame.Header{Kind: frame.Eager, Comm: 1, Tag: 7, Seq: 99, Flags: 3, Aux: 5, Source: 12345}
	if err := eps[0].Send(context.Background(), 1, h, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	got := in.wait(t, 1)[0]
	h.Source = 0 // Send stamps the sender's rank
	if got.peer != 0 || got.h != h || string(got.payload) != "hello" {
		t.Fatalf("got %+v", got)
	}
	// The reverse direction reuses the connection rank 0 dialled.
	if err := eps[1].Send(context.Background(), 0, frame.Header{Kind: frame.CTS}, nil); err != nil {
		t.Fatal(err)
	}
	in.wait(t, 1)
}

func TestSendErrors(t *testing.T) {
	eps, _ := job(t, 2, func(c *Config) { c.MaxPayload = 100 })
	ctx := context.Background()
	for name, err := range map[string]error{
		"self":       eps[0].Send(ctx, 0, frame.Header{Kind: frame.Eager}, nil),
		"range":      eps[0].Send(ctx, 2, frame.Header{Kind: frame.Eager}, nil),
		"negative":   eps[0].Send(ctx, -1, frame.Header{Kind: frame.Eager}, nil),
		"ping":       eps[0].Send(ctx, 1, frame.Header{Kind: frame.Ping}, nil),
		"zero kind":  eps[0].Send(ctx, 1, frame.Header{}, nil),
		"too large":  eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager}, make([]byte, 101)),
		"no address": mustClosed(t, eps[1]).Send(ctx, 0, frame.Header{Kind: frame.Eager}, nil),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := eps[1].Send(ctx, 0, frame.Header{Kind: frame.Eager}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("send after Close: %v, want ErrClosed", err)
	}
	if err := eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager}, make([]byte, 101)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("too large: %v, want ErrTooLarge", err)
	}
}

func mustClosed(t *testing.T, e *Endpoint) *Endpoint {
	e.Close()
	return e
}

func TestConfigValidate(t *testing.T) {
	ok := Config{Rank: 0, Size: 2, JobID: "j", Secret: testSecret, Addrs: (&book{}).lookup, Deliver: func(int, frame.Header, []byte) {}}
	bad := map[string]func(*Config){
		"size":       func(c *Config) { c.Size = 0 },
		"rank":       func(c *Config) { c.Rank = 2 },
		"job":        func(c *Config) { c.JobID = "" },
		"long job":   func(c *Config) { c.JobID = string(make([]byte, MaxJobID+1)) },
		"secret":     func(c *Config) { c.Secret = []byte("short") },
		"no key":     func(c *Config) { c.Secret = nil },
		"two keys":   func(c *Config) { c.Key = func(context.Context) ([]byte, error) { return testSecret, nil } },
		"pre-auth":   func(c *Config) { c.PreAuthTimeout = -time.Second },
		"addrs":      func(c *Config) { c.Addrs = nil },
		"deliver":    func(c *Config) { c.Deliver = nil },
		"payload":    func(c *Config) { c.MaxPayload = -1 },
		"heartbeat":  func(c *Config) { c.Heartbeat = -time.Second },
		"max uint32": func(c *Config) { c.MaxPayload = 1 << 32 },
	}
	for name, f := range bad {
		c := ok
		f(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, c)
		}
	}
	c := ok
	c.Heartbeat = 100 * time.Millisecond
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.MaxPayload != DefaultMaxPayload || c.PeerTimeout != 400*time.Millisecond || c.Logger == nil || c.Listen != DefaultListen ||
		c.PreAuthTimeout != DefaultPreAuthTimeout {
		t.Errorf("defaults not filled: %+v", c)
	}
	solo := Config{Rank: 0, Size: 1, JobID: "j", Deliver: ok.Deliver}
	if err := solo.Validate(); err != nil {
		t.Errorf("a single rank needs no key: %v", err)
	}
}

// TestLargePayloads sends payloads up to MaxPayload and checks every byte.
func TestLargePayloads(t *testing.T) {
	const max = 1 << 20
	in := newInbox()
	eps, _ := job(t, 2, func(c *Config) { c.Deliver = in.deliver; c.MaxPayload = max })
	sizes := []int{0, 1, 4095, 64 << 10, max - 1, max}
	for i, n := range sizes {
		p := make([]byte, n)
		for j := range p {
			p[j] = byte(j*7 + i)
		}
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Data, Aux: uint64(i)}, p); err != nil {
			t.Fatal(err)
		}
		clear(p) // Send copied it
	}
	got := in.wait(t, len(sizes))
	for i, d := range got {
		if len(d.payload) != sizes[i] || d.h.Aux != uint64(i) {
			t.Fatalf("frame %d: %d bytes, aux %d", i, len(d.payload), d.h.Aux)
		}
		for j, b := range d.payload {
			if b != byte(j*7+i) {
				t.Fatalf("frame %d byte %d corrupt", i, j)
			}
		}
	}
}

// TestSimultaneousDial has every pair dial each other at once, repeatedly:
// the connection rule must leave one connection per pair, no frame lost.
func TestSimultaneousDial(t *testing.T) {
	for round := range 10 {
		in := newInbox()
		lost := newLostRec()
		eps, _ := job(t, 4, func(c *Config) { c.Deliver = in.deliver; c.Lost = lost.lost })
		var wg sync.WaitGroup
		for _, e := range eps {
			for peer := range eps {
				if peer != e.Rank() {
					wg.Go(func() {
						if err := e.Send(context.Background(), peer, frame.Header{Kind: frame.Eager, Tag: int32(round)}, nil); err != nil {
							t.Error(err)
						}
					})
				}
			}
		}
		wg.Wait()
		in.wait(t, 12)
		lost.mu.Lock()
		if len(lost.errs) != 0 {
			t.Fatalf("round %d: peers lost: %v", round, lost.errs)
		}
		lost.mu.Unlock()
		checkOneConnPerPair(t, eps)
		for _, e := range eps {
			e.Close()
		}
	}
}

// checkOneConnPerPair checks that both ends of every pair use the same
// socket.
func checkOneConnPerPair(t *testing.T, eps []*Endpoint) {
	t.Helper()
	for i, a := range eps {
		for j, b := range eps {
			if i == j {
				continue
			}
			ca, cb := a.peers[j].c.Load(), b.peers[i].c.Load()
			if ca == nil || cb == nil {
				t.Fatalf("ranks %d and %d: connections %v and %v", i, j, ca, cb)
			}
			if ca.nc.LocalAddr().String() != cb.nc.RemoteAddr().String() {
				t.Fatalf("ranks %d and %d use different sockets: %v→%v and %v→%v", i, j,
					ca.nc.LocalAddr(), ca.nc.RemoteAddr(), cb.nc.LocalAddr(), cb.nc.RemoteAddr())
			}
		}
	}
}
