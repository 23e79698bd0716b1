package ring

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestSendRecvHonourContext(t *testing.T) {
	r := NewHeap(2)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := r.Recv(ctx, make([]byte, 8)); err != context.DeadlineExceeded {
		t.Errorf("Recv on an empty ring = %v, want context.DeadlineExceeded unchanged", err)
	}
	for i := 0; ; i++ { // fill the ring
		if ok, err := r.TrySend([]byte("x")); err != nil || !ok {
			if err != nil || i != 2 {
				t.Fatalf("filling a 2-slot ring: %d sent, then %v", i, err)
			}
			break
		}
	}
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := r.Send(cancelled, []byte("y")); err != context.Canceled {
		t.Errorf("Send on a full ring = %v, want context.Canceled unchanged", err)
	}
	if err := r.Send(cancelled, make([]byte, r.MaxMessage()+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Send of an oversized message = %v, want ErrTooLarge", err)
	}
}

// TestRecvSpotsCorruptionWhileWaiting corrupts the slot a waiting Recv
// polls: it must return ErrCorrupt, not spin forever.
func TestRecvSpotsCorruptionWhileWaiting(t *testing.T) {
	r := NewHeap(4)
	done := make(chan error)
	go func() {
		_, err := r.Recv(context.Background(), make([]byte, 8))
		done <- err
	}()
	time.Sleep(time.Millisecond)
	atomicStore(r.ctl(0), 0xdeadbeefdeadbeef)
	select {
	case err := <-done:
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("Recv = %v, want ErrCorrupt", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Recv still waiting on a corrupt slot")
	}
}

func atomicStore(p *uint64, v uint64) { atomic.StoreUint64(p, v) }
