package tcp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// rank1Differs starts a two-rank job in which rank 1's config is changed.
func rank1Differs(t *testing.T, change func(*Config)) ([]*Endpoint, *logSink) {
	logs := &logSink{}
	eps, _ := job(t, 2, func(c *Config) {
		c.Logger = logs.Logger()
		if c.Rank == 1 {
			change(c)
		}
	})
	return eps, logs
}

func TestAuthWrongSecret(t *testing.T) {
	eps, logs := rank1Differs(t, func(c *Config) { c.Secret = []byte("another-secret-of-16+") })
	err := eps[1].Send(context.Background(), 0, frame.Header{Kind: frame.Eager}, nil)
	if !errors.Is(err, ErrAuth) {
		t.Fatalf("Send with the wrong secret: %v, want ErrAuth", err)
	}
	logs.waitFor(t, "wrong MAC")
	if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, nil); !errors.Is(err, ErrAuth) {
		t.Fatalf("Send to a rank with the wrong secret: %v, want ErrAuth", err)
	}
}

func TestAuthWrongJob(t *testing.T) {
	eps, logs := rank1Differs(t, func(c *Config) { c.JobID = "job-2" })
	err := eps[1].Send(context.Background(), 0, frame.Header{Kind: frame.Eager}, nil)
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "job") {
		t.Fatalf("Send from another job: %v, want ErrAuth naming the job", err)
	}
	logs.waitFor(t, `belongs to job "job-2"`)
}

// rawConn dials addr and reads the acceptor's Hello.
func rawConn(t *testing.T, addr string) (net.Conn, *decoder) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	dec := newDecoder(bufio.NewReader(nc), 1<<10)
	if h, _, err := dec.Next(); err != nil || h.Kind != frame.Hello {
		t.Fatalf("first frame %v, %v; want Hello", h.Kind, err)
	}
	return nc, dec
}

// expectHangUp reads until the acceptor closes, allowing one refusing Bye.
func expectHangUp(t *testing.T, dec *decoder, within time.Duration) {
	t.Helper()
	start := time.Now()
	for {
		h, _, err := dec.Next()
		if err != nil {
			if elapsed := time.Since(start); elapsed > within {
				t.Fatalf("closed after %v, want within %v", elapsed, within)
			}
			return
		}
		if h.Kind != frame.Bye {
			t.Fatalf("got %s, want Bye or the end", h.Kind)
		}
	}
}

func TestAuthGarbage(t *testing.T) {
	logs := &logSink{}
	eps, _ := job(t, 2, func(c *Config) { c.Logger = logs.Logger() })
	nc, dec := rawConn(t, eps[0].Addr())
	nc.Write([]byte("GET / HTTP/1.1\r\nHost: plexus\r\n\r\n"))
	expectHangUp(t, dec, time.Second)
	logs.waitFor(t, "magic byte 0x47")
}

func TestAuthSilentStranger(t *testing.T) {
	logs := &logSink{}
	eps, _ := job(t, 2, func(c *Config) { c.Logger = logs.Logger(); c.HandshakeTimeout = 200 * time.Millisecond })
	_, dec := rawConn(t, eps[0].Addr())
	expectHangUp(t, dec, 2*time.Second)
	logs.waitFor(t, "timeout")
}

// TestAuthImpostorAcceptor: a listener that does not hold the secret is
// found out by the dialer.
func TestAuthImpostorAcceptor(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		writeFrame(nc, frame.Header{Kind: frame.Hello, Source: 1}, make([]byte, nonceSize))
		newDecoder(bufio.NewReader(nc), 1<<10).Next()
		writeFrame(nc, frame.Header{Kind: frame.Auth, Source: 1}, make([]byte, macSize))
		io.Copy(io.Discard, nc)
	}()
	eps, _ := job(t, 2, func(c *Config) {
		c.Addrs = func(int) (string, error) { return ln.Addr().String(), nil }
	})
	err = eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, nil)
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "does not hold") {
		t.Fatalf("Send to an impostor: %v", err)
	}
}

func TestAuthDuplicateAndBadRank(t *testing.T) {
	logs := &logSink{}
	eps, _ := job(t, 2, func(c *Config) { c.Logger = logs.Logger() })
	if err := eps[1].Send(context.Background(), 0, frame.Header{Kind: frame.Eager}, nil); err != nil {
		t.Fatal(err)
	}
	for _, rank := range []int{1, 0, 2, -1} {
		a := authConf{rank: rank, size: 2, job: "job-1", secret: testSecret}
		if _, _, err := fakeDialer(t, eps[0].Addr(), a, 0); !errors.Is(err, ErrAuth) {
			t.Errorf("claiming rank %d: %v, want ErrAuth", rank, err)
		}
	}
	logs.waitFor(t, "rank 1 is already connected")
	logs.waitFor(t, "claims rank 2 of 2")
	if err := eps[1].Send(context.Background(), 0, frame.Header{Kind: frame.Eager}, nil); err != nil {
		t.Fatalf("the real rank 1 was disturbed: %v", err)
	}
}

// TestStrangersDoNotDisturb streams frames between two ranks while
// strangers of every kind knock on both.
func TestStrangersDoNotDisturb(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 1000
	}
	in := newInbox()
	lost := newLostRec()
	logs := &logSink{}
	eps, _ := job(t, 2, func(c *Config) {
		c.Deliver, c.Lost, c.Logger = in.deliver, lost.lost, logs.Logger()
		c.HandshakeTimeout = 300 * time.Millisecond
	})
	done := make(chan struct{})
	go func() { strangers(t, eps); close(done) }()
	sent := 0
	for ; sent < n || !isClosed(done); sent++ {
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Seq: uint64(sent)}, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if sent >= n {
			// Keep the stream going while the strangers finish, but
			// slowly: the inbox holds 1<<16 frames until wait drains it.
			time.Sleep(time.Millisecond)
		}
	}
	for i, d := range in.wait(t, sent) {
		if d.h.Seq != uint64(i) {
			t.Fatalf("frame %d has Seq %d", i, d.h.Seq)
		}
	}
	logs.waitFor(t, "wrong MAC")
	// The rate limit wrote the first few refusals and counted the rest.
	logs.waitFor(t, "suppressed=")
	lost.mu.Lock() // the Closes at cleanup report peers lost concurrently
	defer lost.mu.Unlock()
	if len(lost.errs) != 0 {
		t.Fatalf("peers lost: %v", lost.errs)
	}
}

func strangers(t *testing.T, eps []*Endpoint) {
	wrong := authConf{rank: 1, size: 2, job: "job-1", secret: []byte("not-the-secret-at-all")}
	var wg sync.WaitGroup
	for i := range 20 {
		addr := eps[i%2].Addr()
		wg.Go(func() {
			switch i % 4 {
			case 0:
				fakeDialer(t, addr, wrong, i%2)
			case 1:
				nc, _ := rawConn(t, addr)
				nc.Write([]byte{wireMagic, wireVersion, byte(frame.Auth), 0, 0xff, 0xff, 0xff})
			case 2:
				_, dec := rawConn(t, addr) // silent until the handshake timeout
				expectHangUp(t, dec, time.Second)
			case 3:
				nc, _ := rawConn(t, addr)
				nc.Write(appendFrame(nil, frame.Header{Kind: frame.Eager, Source: 1}, []byte("sneaky")))
			}
		})
	}
	wg.Wait()
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
