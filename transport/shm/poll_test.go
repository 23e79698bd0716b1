//go:build linux

package shm

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// TestPollDelivers: frames a goroutine polls for are delivered on that
// goroutine, the receive goroutine standing aside, and once PollDone is
// called the receive goroutine delivers again.
func TestPollDelivers(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	var polling atomic.Bool
	var onPoller, delivered atomic.Int64
	hook := func(int, frame.Header, []byte) {
		if polling.Load() {
			onPoller.Add(1)
		}
		delivered.Add(1)
	}
	sinks[1].hook.Store(&hook)
	const n = 100
	for i := range n {
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Seq: uint64(i)}, nil); err != nil {
			t.Fatal(err)
		}
		polling.Store(true)
		// Wait for frame i to be delivered, by whichever goroutine: one
		// the receive goroutine took does not count on the poller.
		for deadline := time.Now().Add(time.Second); delivered.Load() <= int64(i) && time.Now().Before(deadline); {
			eps[1].Poll(0)
		}
		polling.Store(false)
	}
	// The receive goroutine may take the first frames before it sees a Poll.
	if got := onPoller.Load(); got < n/2 {
		t.Errorf("%d of %d frames delivered on the polling goroutine", got, n)
	}
	eps[1].PollDone(0)
	sinks[1].hook.Store(nil)
	if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: 1}, []byte("after")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	sinks[1].wait(t, 1, time.Second)
	if d := time.Since(start); d > 20*time.Millisecond {
		t.Errorf("receive goroutine took %v to deliver after PollDone", d)
	}
}

// TestPollConcurrent streams from two ranks to one while several
// goroutines of the receiver poll, stop and poll again, and demands
// exactly-once in-order delivery.
func TestPollConcurrent(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 3, func(c *Config) { c.Slots = 64 })
	n := count(5000)
	size := func(seq uint64) int { return int(seq % 3000) }
	stop := make(chan struct{})
	var pollers sync.WaitGroup
	for g := range 3 {
		pollers.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				eps[2].Poll(g - 1)
				if i%1000 == 999 {
					eps[2].PollDone(g - 1)
					time.Sleep(time.Millisecond)
				}
			}
		})
	}
	var senders sync.WaitGroup
	for from := range 2 {
		senders.Go(func() {
			if err := sendStream(eps[from], 2, from, n, size); err != nil {
				t.Error(err)
			}
		})
	}
	senders.Wait()
	checkStreams(t, sinks[2].wait(t, 2*n, 30*time.Second), size)
	close(stop)
	pollers.Wait()
}

// TestPollAfterClose: Poll on a closed Endpoint delivers nothing and does
// not touch the unmapped segment.
func TestPollAfterClose(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 2, nil)
	if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, nil); err != nil {
		t.Fatal(err)
	}
	eps[1].Close()
	if eps[1].Poll(0) {
		t.Error("Poll after Close delivered a frame")
	}
}

// doneAfter is a done for PollUntil that reports true once n frames were
// delivered.
type doneAfter struct {
	delivered *atomic.Int64
	n         int64
}

func (d doneAfter) Done() bool { return d.delivered.Load() >= d.n }

// TestPollUntilStops: a sweep for a waiter stops right after the delivery
// that makes the waiter done, and leaves the rest for the next sweep.
// The test holds the receive lock itself, so the receive goroutine takes
// nothing meanwhile.
func TestPollUntilStops(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	var delivered atomic.Int64
	hook := func(int, frame.Header, []byte) { delivered.Add(1) }
	sinks[1].hook.Store(&hook)
	e := eps[1]
	e.rx.Lock()
	defer e.rx.Unlock()
	for i := range 5 {
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Seq: uint64(i)}, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if !e.sweep(doneAfter{&delivered, 2}) || delivered.Load() != 2 {
		t.Fatalf("sweep until 2 delivered %d frames, want 2", delivered.Load())
	}
	if !e.sweep(nil) || delivered.Load() != 5 {
		t.Fatalf("a full sweep after it left %d of 5 frames delivered, want all", delivered.Load())
	}
	if e.sweep(doneAfter{&delivered, 0}) {
		t.Error("a sweep of empty rings reported progress")
	}
}
