//go:build linux

package shm

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// passiveRecv polls ep, sleeping between empty polls, until cond holds or
// d passes; only the calling goroutine touches ep.
func passiveRecv(t *testing.T, ep *Endpoint, cond func() bool, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for !cond() {
		if ctx.Err() != nil {
			t.Fatalf("condition not met after %v", d)
		}
		if !ep.PollUntil(-1, nil) {
			ep.Sleep(ctx, cond)
		}
	}
}

// count returns how many frames s holds.
func (s *sink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.frames)
}

// TestPassiveReceivesOnlyInPolls: a passive rank gets nothing until it
// polls, then every frame, of every size and path (one slot, several,
// the bulk buffer, queued bundles), exactly once and in order.
func TestPassiveReceivesOnlyInPolls(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, func(c *Config) { c.Passive = c.Rank == 1 })
	size := func(seq uint64) int { return []int{0, 8, 100, 700, 5000, 20000}[seq%6] }
	const n = 600
	errc := make(chan error, 1)
	go func() { errc <- sendStream(eps[0], 1, 3, n, size) }()
	time.Sleep(50 * time.Millisecond) // the ring fills meanwhile; nobody receives
	if got := sinks[1].count(); got != 0 {
		t.Fatalf("a passive rank delivered %d frames without polling", got)
	}
	passiveRecv(t, eps[1], func() bool { return sinks[1].count() == n }, 30*time.Second)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	checkStreams(t, sinks[1].frames, size)
}

// TestPassivePingPong: two passive ranks, each used by one goroutine,
// bounce frames with pauses between them, so that each sleeps and is
// woken by the other's sends.
func TestPassivePingPong(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, func(c *Config) { c.Passive = true })
	const rounds = 20
	done := make(chan error, 1)
	go func() { // rank 1 answers each frame
		for i := range rounds {
			passiveRecv(t, eps[1], func() bool { return sinks[1].count() > i }, 30*time.Second)
			time.Sleep(time.Millisecond)
			if err := eps[1].Send(context.Background(), 0, frame.Header{Kind: frame.Eager, Tag: 1, Seq: uint64(i)}, payloadFor(1, uint64(i), 8)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := range rounds {
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: 1, Seq: uint64(i)}, payloadFor(1, uint64(i), 8)); err != nil {
			t.Fatal(err)
		}
		passiveRecv(t, eps[0], func() bool { return sinks[0].count() > i }, 30*time.Second)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkStreams(t, sinks[0].frames, func(uint64) int { return 8 })
	checkStreams(t, sinks[1].frames, func(uint64) int { return 8 })
	if eps[0].Stats().Sleeps == 0 || eps[1].Stats().Sleeps == 0 {
		t.Fatalf("sleeps %d and %d: the ranks never slept", eps[0].Stats().Sleeps, eps[1].Stats().Sleeps)
	}
}

// TestPassiveSleepReturns: Sleep ends when ctx ends, when ready says so
// and when the peer is lost — long before its Heartbeat.
func TestPassiveSleepReturns(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, func(c *Config) {
		c.Passive = c.Rank == 0
		c.Heartbeat, c.PeerTimeout = 2*time.Second, 20*time.Second
	})
	ep := eps[0]
	start := time.Now()
	ep.Sleep(context.Background(), func() bool { return true })
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Sleep with ready true took %v", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start = time.Now()
	ep.Sleep(ctx, nil)
	if d := time.Since(start); d > time.Second || ctx.Err() == nil {
		t.Fatalf("Sleep returned after %v, ctx %v", d, ctx.Err())
	}
	go func() { time.Sleep(20 * time.Millisecond); eps[1].Close() }()
	var err error
	passiveRecv(t, ep, func() bool {
		select {
		case err = <-sinks[0].lost:
			return true
		default:
			return false
		}
	}, 10*time.Second)
	if !errors.Is(err, ErrPeerLost) {
		t.Fatalf("lost with %v, want ErrPeerLost", err)
	}
}

// TestPassiveFlushesOnSleep: with no flush timer, a passive rank's queued
// frame goes out when it sleeps waiting for the answer.
func TestPassiveFlushesOnSleep(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, func(c *Config) { c.Passive = c.Rank == 0 })
	if err := eps[0].Queue(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: 2}, payloadFor(2, 0, 8)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * flushAfter)
	if got := sinks[1].count(); got != 0 {
		t.Fatalf("%d frames arrived before the passive rank called again", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	eps[0].Sleep(ctx, nil)
	sinks[1].wait(t, 1, 10*time.Second)
}
