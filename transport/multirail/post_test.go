package multirail

import (
	"bytes"
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// TestLinkPostPipelines posts messages without waiting for any, over
// three rails of which one is far slower than its profile says (chunks
// arrive out of order, and the other rails run messages ahead of it):
// each done is called exactly once, with nil; Flush returns once all are
// acknowledged; the receiver gets every message once, intact, in order;
// and no rail is refused, so the partial messages the receiver holds
// stayed within its window.
func TestLinkPostPipelines(t *testing.T) {
	a, b := pair(t, 3, Config{Window: 1 << 20}, func(i, side int, c net.Conn) net.Conn {
		if i == 2 && side == 0 {
			return slowConn{c, 2 * time.Millisecond}
		}
		return c
	})
	msgs := randomMessages(41, 50, 300<<10)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	calls := make([]int, len(msgs))
	go func() {
		for i, m := range msgs {
			err := a.Post(ctx, m, func(err error) {
				mu.Lock()
				defer mu.Unlock()
				calls[i]++
				if err != nil {
					t.Errorf("message %d ended with %v", i, err)
				}
			})
			if err != nil {
				t.Errorf("post %d: %v", i, err)
				return
			}
		}
	}()
	for i, want := range msgs {
		got, err := b.Recv(ctx)
		if err != nil {
			t.Fatalf("receive %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("message %d: %d bytes, not the %d posted", i, len(got), len(want))
		}
	}
	if err := a.Flush(ctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
	if sa, sb := a.Stats(), b.Stats(); len(sa.RailsDown)+len(sb.RailsDown) != 0 {
		t.Errorf("rails down: sender %v, receiver %v; want none", sa.RailsDown, sb.RailsDown)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, n := range calls {
		if n != 1 {
			t.Errorf("message %d: done called %d times, want once", i, n)
		}
	}
}

// TestLinkPostFailsWithRails: a message posted on rails that then all
// fail hears ErrRailsDown through done, once, and Flush returns it.
func TestLinkPostFailsWithRails(t *testing.T) {
	a, _ := pair(t, 2, Config{AckTimeout: 50 * time.Millisecond}, func(i, side int, c net.Conn) net.Conn {
		if side == 1 {
			return muteConn{c} // no acknowledgement ever comes back
		}
		return c
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ended := make(chan error, 2)
	if err := a.Post(ctx, make([]byte, 200<<10), func(err error) { ended <- err }); err != nil {
		t.Fatal(err)
	}
	if err := a.Flush(ctx); !errorsIs(err, ErrRailsDown) {
		t.Errorf("flush: %v, want ErrRailsDown", err)
	}
	if err := <-ended; !errorsIs(err, ErrRailsDown) {
		t.Errorf("done: %v, want ErrRailsDown", err)
	}
	if len(ended) != 0 {
		t.Error("done called twice")
	}
}

// TestLinkBusyIsWhatIsUnacknowledged: a rail's busy time is its
// unacknowledged bytes at its rate, so a rail that is behind gets less of
// the next message, and once every chunk is acknowledged (a rail broken
// mid-transfer included: its chunks moved to the others) nothing is
// counted unacknowledged anywhere (Flush waits for the acknowledgements
// of the small messages, whose Sends do not).
func TestLinkBusyIsWhatIsUnacknowledged(t *testing.T) {
	a, b := pair(t, 3, Config{}, func(i, side int, c net.Conn) net.Conn {
		if i == 1 && side == 0 {
			return &breakConn{Conn: c, after: 1 << 20}
		}
		return c
	})
	exchange(t, a, b, randomMessages(43, 20, 512<<10))
	if err := a.Flush(context.Background()); err != nil { // the small messages' Sends did not wait
		t.Fatal(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, rc := range a.rails {
		if rc.unacked != 0 {
			t.Errorf("rail %d: %d bytes unacknowledged after every message was", i, rc.unacked)
		}
	}
	a.rails[1].down = false // the strategy's view only: is rail 0 behind given less?
	idle := rail.Split(a.snapshot(), 1<<20, rail.Config{})
	a.rails[0].unacked = 4 << 20
	behind := rail.Split(a.snapshot(), 1<<20, rail.Config{})
	share := func(cs []rail.Chunk) int {
		for _, c := range cs {
			if c.Rail == 0 {
				return c.Len
			}
		}
		return 0
	}
	if share(behind) >= share(idle) {
		t.Errorf("rail 0 with 4 MiB unacknowledged gets %d bytes of 1 MiB, idle %d: want less", share(behind), share(idle))
	}
}
