package shm

import (
	"bytes"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSendersLeaveFrames checks the combining outbox: while the receiver
// is stuck and the ring is full, goroutines sending small frames leave
// them queued and return, rather than each waiting for room; once the
// receiver goes on, every frame arrives, each sender's in order.
func TestSendersLeaveFrames(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, func(c *Config) { c.Slots = 64 })
	gate := make(chan struct{})
	var mu sync.Mutex
	var frames []delivered
	hook := func(peer int, h Header, p []byte) {
		<-gate
		mu.Lock()
		frames = append(frames, delivered{peer, h, bytes.Clone(p)})
		mu.Unlock()
	}
	sinks[1].hook.Store(&hook)
	const senders, each = 200, 20
	size := func(uint64) int { return 24 }
	var returned atomic.Int64
	var wg sync.WaitGroup
	for tag := range senders {
		wg.Go(func() {
			if err := sendStream(eps[0], 1, tag, each, size); err != nil {
				t.Error(err)
			}
			returned.Add(1)
		})
	}
	// The ring holds a few dozen frames; the rest must wait in the queue.
	// At most one sender, the one writing, may still be in Send.
	deadline := time.Now().Add(5 * time.Second)
	for returned.Load() < senders-1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := returned.Load(); got < senders-1 {
		t.Errorf("with the receiver stuck, %d of %d senders returned; want all but the writer", got, senders)
	}
	close(gate)
	wg.Wait()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		mu.Lock()
		n := len(frames)
		mu.Unlock()
		if n == senders*each || time.Now().After(deadline) {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(frames) != senders*each {
		t.Fatalf("%d frames arrived, want %d", len(frames), senders*each)
	}
	checkStreams(t, frames, size)
}
