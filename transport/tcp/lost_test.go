package tcp

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/internal/logtest"
	"github.com/plexus-hpc/plexus/transport/frame"
)

// waitLost waits for Lost reports naming want, within d.
func waitLost(t *testing.T, r *lostRec, want int, d time.Duration) error {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case p := <-r.ch:
			if p == want {
				r.mu.Lock()
				defer r.mu.Unlock()
				return r.errs[p]
			}
		case <-timeout:
			t.Fatalf("rank %d not reported lost within %v", want, d)
		}
	}
}

// connectAll makes every rank send one frame to every other.
func connectAll(t *testing.T, eps []*Endpoint) {
	t.Helper()
	for _, e := range eps {
		for peer := range eps {
			if peer != e.Rank() {
				if err := e.Send(context.Background(), peer, frame.Header{Kind: frame.Eager}, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func TestCloseReportsLost(t *testing.T) {
	recs := []*lostRec{newLostRec(), newLostRec(), newLostRec()}
	eps, _ := job(t, 3, func(c *Config) { c.Lost = recs[c.Rank].lost })
	connectAll(t, eps)
	eps[2].Close()
	for r := range 2 {
		err := waitLost(t, recs[r], 2, time.Second)
		if !errors.Is(err, ErrPeerLost) || !strings.Contains(err.Error(), "Bye") {
			t.Errorf("rank %d: lost error %v", r, err)
		}
		if err := eps[r].Send(context.Background(), 2, frame.Header{Kind: frame.Eager}, nil); !errors.Is(err, ErrPeerLost) {
			t.Errorf("rank %d: Send to the lost rank: %v, want ErrPeerLost", r, err)
		}
	}
	if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, nil); err != nil {
		t.Errorf("ranks 0 and 1 were disturbed: %v", err)
	}
	recs[2].mu.Lock()
	defer recs[2].mu.Unlock()
	if len(recs[2].errs) != 0 {
		t.Errorf("the closed rank reported %v", recs[2].errs)
	}
}

// TestDropReportsLost cuts a socket without a Bye, as a crash would.
func TestDropReportsLost(t *testing.T) {
	recs := []*lostRec{newLostRec(), newLostRec()}
	eps, _ := job(t, 2, func(c *Config) { c.Lost = recs[c.Rank].lost; c.Logger = slog.New(slog.DiscardHandler) })
	connectAll(t, eps)
	cut(eps[1].peers[0].c.Load())
	if err := waitLost(t, recs[0], 1, time.Second); !errors.Is(err, ErrPeerLost) {
		t.Errorf("rank 0: %v", err)
	}
	if err := waitLost(t, recs[1], 0, time.Second); !errors.Is(err, ErrPeerLost) {
		t.Errorf("rank 1: %v", err)
	}
}

// TestHeartbeat: a peer that completed the handshake and then went silent
// (a dead host, no FIN) is lost within PeerTimeout.
func TestHeartbeat(t *testing.T) {
	rec := newLostRec()
	logs := &logSink{}
	e, err := Listen(Config{Rank: 0, Size: 2, JobID: "job-1", Secret: testSecret, Addrs: (&book{}).lookup,
		Deliver: func(int, frame.Header, []byte) {}, Lost: rec.lost, Logger: logs.Logger(),
		Heartbeat: 100 * time.Millisecond, PeerTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	nc, _, err := fakeDialer(t, e.Addr(), authConf{rank: 1, size: 2, job: "job-1", secret: testSecret}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	start := time.Now()
	if err := waitLost(t, rec, 1, 2*time.Second); !strings.Contains(err.Error(), "no frame for") {
		t.Errorf("lost error %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("silent peer noticed after %v", d)
	}
}

// TestBackpressure: with a peer that never reads, Send blocks once the
// socket and the queue are full; ctx and Close both end the wait.
func TestBackpressure(t *testing.T) {
	e, err := Listen(Config{Rank: 0, Size: 2, JobID: "job-1", Secret: testSecret, Addrs: (&book{}).lookup,
		Deliver: func(int, frame.Header, []byte) {}, QueueBytes: 64 << 10, Logger: logtest.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	nc, _, err := fakeDialer(t, e.Addr(), authConf{rank: 1, size: 2, job: "job-1", secret: testSecret}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fillUntilBlocked(t, e)
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	wg.Go(func() { errs <- e.Send(context.Background(), 1, frame.Header{Kind: frame.Data}, make([]byte, 64<<10)) })
	time.Sleep(50 * time.Millisecond)
	e.Close()
	wg.Wait()
	if err := <-errs; !errors.Is(err, ErrClosed) {
		t.Fatalf("blocked Send after Close: %v, want ErrClosed", err)
	}
}

// fillUntilBlocked sends until a Send waits longer than 100 ms.
func fillUntilBlocked(t *testing.T, e *Endpoint) {
	t.Helper()
	p := make([]byte, 64<<10)
	for range 100000 {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := e.Send(ctx, 1, frame.Header{Kind: frame.Data}, p)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("Send never blocked")
}

// TestHeartbeatMixed: a rank with heartbeats on keeps an idle peer that
// has them off, because the peer answers its Pings.
func TestHeartbeatMixed(t *testing.T) {
	rec := newLostRec()
	eps, _ := job(t, 2, func(c *Config) {
		c.Lost = rec.lost
		if c.Rank == 0 {
			c.Heartbeat, c.PeerTimeout = 20*time.Millisecond, 100*time.Millisecond
		}
	})
	connectAll(t, eps)
	time.Sleep(400 * time.Millisecond)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.errs) != 0 {
		t.Fatalf("idle peer lost: %v", rec.errs)
	}
}

// TestFrameThenEOF: a peer that sends frames and hangs up at once, so
// that the end of the stream arrives with the last bytes, is reported
// lost by the reader goroutine, with nobody polling and no heartbeat.
func TestFrameThenEOF(t *testing.T) {
	eachSock(t, func(t *testing.T, detach bool) {
		for range 20 {
			rec := newLostRec()
			eps, _ := job(t, 1, func(c *Config) { c.Size, c.Lost, c.Logger = 2, rec.lost, slog.New(slog.DiscardHandler) })
			setDetach(eps, detach)
			nc, _, err := fakeDialer(t, eps[0].Addr(), authConf{rank: 1, size: 2, job: "job-1", secret: testSecret}, 0)
			if err != nil {
				t.Fatal(err)
			}
			nc.Write(appendFrame(nil, frame.Header{Kind: frame.Eager, Source: 1}, []byte("last words")))
			nc.Close()
			if err := waitLost(t, rec, 1, time.Second); !errors.Is(err, ErrPeerLost) {
				t.Errorf("lost error %v", err)
			}
			eps[0].Close()
		}
	})
}
