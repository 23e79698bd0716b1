//go:build linux

package shm

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// A rank that sleeps must leave its processor to the rank's other
// goroutines. On a futex the sleeping receive goroutine kept its P in the
// system call until Go's monitor took it back, which it does after up to
// ten milliseconds: with one P (a rank bound to one CPU), every other
// goroutine of the rank stopped meanwhile. On the doorbell it parks.
//
// TestSleepFreesTheProcessor runs with GOMAXPROCS 1: rank 1's receive
// goroutine is woken by a frame every few tens of milliseconds and goes
// back to sleep, while a goroutine of the same process yields in a loop;
// the longest gap between two of its turns must stay under gapLimit. The
// frames are rare on purpose: the monitor looks for Ps to take back from
// system calls at once while it keeps finding some, and backs off to
// every ten milliseconds once it finds none for a while.
func TestSleepFreesTheProcessor(t *testing.T) {
	if testing.Short() {
		t.Skip("a timing test")
	}
	if os.Getenv("PLEXUS_TIMING_TESTS") == "" {
		t.Skip("a timing test: run it alone, with PLEXUS_TIMING_TESTS=1")
	}
	const gapLimit = 2 * time.Millisecond
	var worst time.Duration
	for range 3 {
		if worst = longestTurnGap(t); worst < gapLimit {
			t.Logf("longest gap between turns %v", worst)
			return
		}
	}
	t.Errorf("a goroutine beside a sleeping receiver waited %v for its turn, want under %v", worst, gapLimit)
}

func longestTurnGap(t *testing.T) time.Duration {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	eps, sinks := openN(t, shmDir(t), 2, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	go func() {
		for seq := uint64(0); ctx.Err() == nil; seq++ {
			if err := eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager, Seq: seq}, []byte("x")); err != nil {
				return
			}
			time.Sleep(30 * time.Millisecond)
		}
	}()
	var worst time.Duration
	last := time.Now()
	for ctx.Err() == nil {
		runtime.Gosched()
		now := time.Now()
		worst = max(worst, now.Sub(last))
		last = now
	}
	if n := len(sinks[1].wait(t, 1, time.Second)); n == 0 {
		t.Fatal("nothing delivered")
	}
	if eps[1].Stats().Sleeps == 0 {
		t.Fatal("rank 1 never slept: the test measured nothing")
	}
	return worst
}

// TestBellsBeyondTheBound: past maxBells a rank rings a sleeping peer's
// doorbell by opening it each time; the peer still wakes at once (the
// heartbeat, which would also end its sleep, is minutes here), and no
// more bells than the bound stay open.
func TestBellsBeyondTheBound(t *testing.T) {
	defer func(n int32) { maxBells = n }(maxBells)
	maxBells = 1
	eps, sinks := openN(t, shmDir(t), 3, func(c *Config) { c.Heartbeat, c.PeerTimeout = time.Minute, 2*time.Minute })
	for round := range 3 {
		for _, p := range []int{1, 2} {
			deadline := time.Now().Add(5 * time.Second)
			for eps[p].Stats().Sleeps <= uint64(round) { // let it fall asleep
				if time.Now().After(deadline) {
					t.Fatalf("rank %d never slept", p)
				}
				time.Sleep(time.Millisecond)
			}
			start := time.Now()
			if err := eps[0].Send(context.Background(), p, frame.Header{Kind: frame.Eager, Seq: uint64(round)}, []byte("x")); err != nil {
				t.Fatal(err)
			}
			sinks[p].wait(t, round+1, 10*time.Second)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("round %d: rank %d woke after %v", round, p, d)
			}
		}
	}
	if n := eps[0].bellsOpen.Load(); n != 1 {
		t.Errorf("%d bells kept open, want 1", n)
	}
}

// TestCloseAfterPeersIsPrompt: a rank closing after its peers, while its
// receive goroutine sleeps, wakes it through its doorbell at once, not
// at the heartbeat (a minute here). A closing Endpoint once cleared a
// sleeper's word and then declined to open its bell, so the sleep ran
// to the heartbeat.
func TestCloseAfterPeersIsPrompt(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 3, func(c *Config) { c.Heartbeat, c.PeerTimeout = time.Minute, 2*time.Minute })
	for _, e := range eps {
		deadline := time.Now().Add(5 * time.Second)
		for e.Stats().Sleeps == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	for r, e := range eps {
		start := time.Now()
		if err := e.Close(); err != nil {
			t.Errorf("rank %d: Close: %v", r, err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("rank %d: Close took %v, want well under the heartbeat", r, d)
		}
	}
}
