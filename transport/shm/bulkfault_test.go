//go:build linux

package shm

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// TestBulkLostInSamePoll: a poll that delivers a peer's bulk frame and
// then reports the peer lost must not publish the consumed count through
// the inbox reportLost cleared. Before publishBulk skipped cleared
// inboxes, the poll panicked with a nil pointer.
func TestBulkLostInSamePoll(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, func(c *Config) { c.Passive = true })
	if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	eps[1].markLost(0, errors.New("lost for the test"))
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Poll panicked: %v", r)
			}
		}()
		eps[1].Poll(0)
	}()
	if got := len(sinks[1].wait(t, 1, time.Second)); got != 1 {
		t.Errorf("%d frames delivered, want 1", got)
	}
	select {
	case err := <-sinks[1].lost:
		t.Logf("lost: %v", err)
	case <-time.After(time.Second):
		t.Error("peer not reported lost")
	}
}

// TestBulkGarbageConsumed: a consumed count past what the sender produced
// (the segment overwritten) fails the Send that waits for room, with an
// error naming the peer, and loses the peer. Before loadTail checked it,
// the sender waited for ever (here: until its context ended).
func TestBulkGarbageConsumed(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, func(c *Config) { c.Passive = c.Rank == 1 }) // rank 1 never polls
	payload := make([]byte, bulkMax)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	send := func() error { return eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager}, payload) }
	if err := send(); err != nil {
		t.Fatal(err)
	}
	atomic.StoreUint64(eps[0].seg.bulkConsumed(0, 1), 1<<40)
	var err error
	for i := 0; err == nil && i < bulkBytes/bulkMax+1; i++ {
		err = send()
	}
	if !errors.Is(err, ErrPeerLost) || !errors.Is(err, ErrBadSegment) || !strings.Contains(err.Error(), "0→1") {
		t.Fatalf("Send with a garbage consumed count = %v, want ErrPeerLost and ErrBadSegment naming the buffer 0→1", err)
	}
	t.Log(err)
	eps[0].Poll(1)
	select {
	case err := <-sinks[0].lost:
		t.Logf("lost: %v", err)
	case <-time.After(time.Second):
		t.Error("peer not reported lost")
	}
}
