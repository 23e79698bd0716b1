//go:build linux

package shm

import (
	"bytes"
	"context"
	"errors"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/ring"
	"github.com/plexus-hpc/plexus/transport/frame"
)

func count(full int) int {
	if testing.Short() {
		return full / 10
	}
	return full
}

// TestManyGoroutines sends from several goroutines per pair of ranks, for
// two and four ranks, and demands exactly-once in-order delivery per
// goroutine.
func TestManyGoroutines(t *testing.T) {
	for _, ranks := range []int{2, 4} {
		eps, sinks := openN(t, shmDir(t), ranks, func(c *Config) { c.Slots = 64 })
		const senders = 4
		n := count(5000)
		size := func(seq uint64) int { return int(seq % 300) }
		var wg sync.WaitGroup
		for from := range ranks {
			for to := range ranks {
				for g := range senders {
					if from == to {
						continue
					}
					wg.Go(func() {
						if err := sendStream(eps[from], to, g, n, size); err != nil {
							t.Error(err)
						}
					})
				}
			}
		}
		wg.Wait()
		for r := range ranks {
			checkStreams(t, sinks[r].wait(t, (ranks-1)*senders*n, 30*time.Second), size)
		}
	}
}

// TestLargeFrames sends frames from empty to MaxPayload across the chunk
// boundaries.
func TestLargeFrames(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, func(c *Config) { c.Slots = 64; c.MaxPayload = 1 << 20 })
	maxMsg := eps[0].maxMessage()
	sizes := []int{0, 1, maxMsg - headerSize, maxMsg - headerSize + 1, maxMsg, 3*maxMsg + 5, 100_000, 1 << 20}
	size := func(seq uint64) int { return sizes[seq] }
	go func() {
		if err := sendStream(eps[0], 1, 0, len(sizes), size); err != nil {
			t.Error(err)
		}
	}()
	checkStreams(t, sinks[1].wait(t, len(sizes), 10*time.Second), size)
	err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, make([]byte, 1<<20+1))
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("Send beyond MaxPayload = %v, want ErrTooLarge", err)
	}
}

// TestShortHeaderFrames sends frames with the short header (Seq 0, Aux
// the length, as eager messages have) across the one-slot and chunk
// boundaries of that form, and checks that they arrive whole, in order,
// with Aux and Source restored.
func TestShortHeaderFrames(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, func(c *Config) { c.Slots = 64 })
	maxMsg := eps[0].maxMessage()
	one := ring.SlotPayload - shortSize
	sizes := []int{0, 1, one, one + 1, maxMsg - shortSize, maxMsg - shortSize + 1, 3*maxMsg + 5}
	go func() {
		for i, n := range sizes {
			h := frame.Header{Kind: frame.Eager, Tag: int32(i), Aux: uint64(n)}
			if err := eps[0].Send(context.Background(), 1, h, payloadFor(i, 0, n)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	got := sinks[1].wait(t, len(sizes), 10*time.Second)
	for i, f := range got {
		n := sizes[i]
		if int(f.h.Tag) != i || f.h.Aux != uint64(n) || f.h.Seq != 0 || f.h.Source != 0 || !bytes.Equal(f.payload, payloadFor(i, 0, n)) {
			t.Errorf("frame %d: tag %d aux %d seq %d source %d, %d bytes; want tag %d aux %d, %d bytes intact",
				i, f.h.Tag, f.h.Aux, f.h.Seq, f.h.Source, len(f.payload), i, n, n)
		}
	}
}

// TestSleepWake leaves both ranks idle — they must sleep on the futex and
// not burn CPU — then wakes one with a send.
func TestSleepWake(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	time.Sleep(50 * time.Millisecond) // past the spin phase
	before := cpuTime()
	const idle = 300 * time.Millisecond
	time.Sleep(idle)
	if used := cpuTime() - before; used > idle/4 {
		t.Errorf("two idle endpoints used %v of CPU in %v", used, idle)
	}
	if s := eps[1].Stats(); s.Sleeps == 0 {
		t.Fatalf("idle receiver never slept: %+v", s)
	}
	// The receiver wakes every Heartbeat to look around and is awake for
	// a moment then; on a loaded machine (the whole test suite at once)
	// the frame may land in such a moment, so try a few times for one
	// that finds it asleep.
	for try := 1; ; try++ {
		start := time.Now()
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: 1}, []byte("wake")); err != nil {
			t.Fatal(err)
		}
		sinks[1].wait(t, try, time.Second)
		if d := time.Since(start); d > 20*time.Millisecond {
			t.Errorf("sleeping receiver took %v to deliver (a missed wake-up waits out the %v timeout)", d, DefaultHeartbeat)
		}
		s := eps[0].Stats()
		if s.Wakes > 0 {
			break
		}
		if try == 5 {
			t.Fatalf("in %d tries the sender never woke the sleeping receiver: %+v", try, s)
		}
		time.Sleep(100 * time.Millisecond) // asleep again
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestPeerClose: a peer that closes is reported lost after everything it
// sent was delivered, and Sends to it fail.
func TestPeerClose(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, func(c *Config) { c.Slots = 16 })
	n := count(2000)
	size := func(seq uint64) int { return int(seq % 700) }
	if err := sendStream(eps[0], 1, 0, n, size); err != nil {
		t.Fatal(err)
	}
	eps[0].Close()
	select {
	case err := <-sinks[1].lost:
		if !errors.Is(err, ErrPeerLost) {
			t.Errorf("Lost with %v, want ErrPeerLost", err)
		}
	case <-time.After(time.Second):
		t.Fatal("closed peer not reported lost within a second")
	}
	checkStreams(t, sinks[1].wait(t, n, time.Second), size)
	if err := eps[1].Send(context.Background(), 0, frame.Header{Kind: frame.Eager}, nil); !errors.Is(err, ErrPeerLost) {
		t.Errorf("Send to a closed peer = %v, want ErrPeerLost", err)
	}
	if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Send on a closed endpoint = %v, want ErrClosed", err)
	}
}

// TestRemovedByLastRank: the segment file goes when every rank has closed.
func TestRemovedByLastRank(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 3, nil)
	path := eps[0].Path()
	for i, ep := range eps {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("segment gone before rank %d closed: %v", i, err)
		}
		ep.Close()
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("segment still there after every rank closed: %v", err)
	}
}

func TestWatch(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var w watch
	const timeout = time.Second
	steps := []struct {
		o    observation
		at   time.Duration
		lost bool
	}{
		{observation{pid: 0}, 0, false},
		{observation{pid: 7, state: stateAlive, beat: 1, alive: true}, 0, false},
		{observation{pid: 7, state: stateAlive, beat: 1, alive: true}, 900 * time.Millisecond, false},
		{observation{pid: 7, state: stateAlive, beat: 2, alive: true}, 1500 * time.Millisecond, false},
		{observation{pid: 7, state: stateAlive, beat: 2, alive: true}, 2600 * time.Millisecond, true},
	}
	for i, s := range steps {
		if err := w.observe(s.o, t0.Add(s.at), timeout); (err != nil) != s.lost {
			t.Fatalf("step %d: %v, want lost=%v", i, err, s.lost)
		}
	}
	if (&watch{}).observe(observation{pid: 7, alive: false}, t0, timeout) == nil {
		t.Error("dead process not lost")
	}
	if (&watch{}).observe(observation{pid: 7, alive: true, state: stateClosed}, t0, timeout) == nil {
		t.Error("closed rank not lost")
	}
}
