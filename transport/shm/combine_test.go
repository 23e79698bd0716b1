//go:build linux

package shm

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
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
	hook := func(peer int, h frame.Header, p []byte) {
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

// TestQueuedFramesBundled: frames left in the queue while a sender holds
// the ring go out together, as one ring message of whole frames, in the
// order they were left. The test holds the receiver's lock and reads the
// ring itself.
func TestQueuedFramesBundled(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 2, nil)
	rx, tx := eps[1], eps[0]
	rx.rx.Lock()
	defer rx.rx.Unlock()
	ctx := context.Background()
	if err := tx.Send(ctx, 1, frame.Header{Kind: frame.Eager}, []byte("opens the ring")); err != nil {
		t.Fatal(err)
	}
	const n = 10
	o := &tx.out[1]
	o.mu.Lock() // as a sender in the middle of a frame: the next ones are left
	for i := range n {
		if err := tx.Send(ctx, 1, frame.Header{Kind: frame.Eager, Tag: int32(i), Aux: 3}, []byte{byte(i), 1, 2}); err != nil {
			t.Fatal(err)
		}
	}
	if q := o.queued.Load(); q != n {
		t.Fatalf("%d frames queued, want %d", q, n)
	}
	tx.release(1, o) // writes the queue and unlocks
	in := &rx.in[0]
	if !rx.attach(0, in) {
		t.Fatal("ring from rank 0 not attached")
	}
	buf := make([]byte, in.r.MaxMessage())
	var msgs [][]byte
	for {
		m, ok, err := in.r.TryRecv(buf)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		msgs = append(msgs, bytes.Clone(buf[:m]))
	}
	if len(msgs) != 2 {
		t.Fatalf("%d ring messages, want 2: the first frame and one bundle of %d", len(msgs), n)
	}
	rest := msgs[1]
	for i := range n {
		h, total, hl, err := parseHeader(rest, 0)
		if err != nil || int(h.Tag) != i || total != 3 || rest[hl] != byte(i) {
			t.Fatalf("frame %d of the bundle: %+v, %d bytes, %v", i, h, total, err)
		}
		rest = rest[hl+total:]
	}
	if len(rest) != 0 {
		t.Errorf("%d bytes after the last frame of the bundle", len(rest))
	}
}
