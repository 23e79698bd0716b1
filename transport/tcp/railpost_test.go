package tcp

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// TestRailsSendDoesNotWaitForAcks has the receiver's rails swallow their
// acknowledgements: every Send of a long frame still returns, without
// error, once the frame is queued (as on the main connection), and the
// frames arrive once and intact. With no acknowledgement ever coming, the
// sender's rails all time out, and the peer, which is not closing, is
// then reported lost: a frame whose every rail failed is not sent again
// elsewhere.
func TestRailsSendDoesNotWaitForAcks(t *testing.T) {
	rec := newReceived()
	lost := make(chan error, 1)
	eps := railJob(t, 2, rec, func(c *Config) {
		if c.Rank == 0 {
			c.Lost = func(peer int, err error) { lost <- err }
		}
	})
	eps[1].rails.wrapIn = func(_ int, c net.Conn) net.Conn { return muteConn{c} }
	ctx := context.Background()
	if err := eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager, Aux: 1}, []byte{1}); err != nil {
		t.Fatal(err)
	}
	want := map[[2]uint64]bool{}
	for i, n := range []int{1 << 20, 2<<20 + 5, 1<<20 + 3} {
		seq := uint64(300 + i)
		if err := eps[0].Send(ctx, 1, frame.Header{Kind: frame.Data, Seq: seq, Aux: uint64(n)}, pattern(n, seq)); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		want[[2]uint64{seq, uint64(n)}] = true
	}
	waitFrames(t, rec, len(want))
	checkOnce(t, rec, want)
	select {
	case err := <-lost:
		if err == nil {
			t.Error("peer reported lost without a cause")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the peer whose rails never acknowledged was not reported lost")
	}
	if st := eps[0].RailStats(); st.Frames != int64(len(want)) {
		t.Errorf("rail stats %+v: want %d frames", st, len(want))
	}
}

// TestRailsCloseFlushes posts long frames and closes the sender at once:
// Close waits for the rails' acknowledgements before its Bye, so every
// frame is delivered before the receiver hears that the sender is gone.
func TestRailsCloseFlushes(t *testing.T) {
	rec := newReceived()
	atLost := make(chan int, 1)
	eps := railJob(t, 3, rec, func(c *Config) {
		if c.Rank == 1 {
			c.Lost = func(int, error) {
				rec.mu.Lock()
				atLost <- len(rec.seen)
				rec.mu.Unlock()
			}
		}
	})
	ctx := context.Background()
	if err := eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager, Aux: 1}, []byte{1}); err != nil {
		t.Fatal(err)
	}
	const frames = 12
	for i := range frames {
		seq, n := uint64(400+i), 1<<20+i
		if err := eps[0].Send(ctx, 1, frame.Header{Kind: frame.Data, Seq: seq, Aux: uint64(n)}, pattern(n, seq)); err != nil {
			t.Fatal(err)
		}
	}
	eps[0].Close()
	select {
	case n := <-atLost:
		if n != frames {
			t.Errorf("%d of %d frames delivered when the sender was reported lost", n, frames)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the sender's close was not reported")
	}
}
