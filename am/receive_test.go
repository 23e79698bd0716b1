package am

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestEngineAfterClose: after both ranks close their engines, new ones
// on the same worlds and tag get every packet: the receives the old
// inboxes kept posted were withdrawn, not left to take them.
func TestEngineAfterClose(t *testing.T) {
	ws := tcpWorlds(t, 2)
	ctx := testCtx(t)
	for round := range 2 {
		es, counts := counting(t, ws, Config{})
		const n = 3000 // several packets, more than receiveDepth's
		for range n {
			if err := es[0].Post(ctx, 1, 0, make([]byte, 32)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := es[0].Call(ctx, 1, 0, nil); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if got := counts[1].Load(); got != n+1 {
			t.Fatalf("round %d: rank 1 ran %d messages, want %d", round, got, n+1)
		}
		var wg sync.WaitGroup
		for _, e := range es {
			wg.Go(func() { e.Close(context.Background()) })
		}
		wg.Wait()
	}
}

// TestReceiveDepth: small worlds keep many receives posted, large ones
// few, never none.
func TestReceiveDepth(t *testing.T) {
	for _, tc := range []struct{ size, want int }{{1, maxDepth}, {2, maxDepth}, {32, 8}, {256, 1}, {5000, 1}} {
		if got := receiveDepth(tc.size); got != tc.want {
			t.Errorf("receiveDepth(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}

// TestDeliverTrailer feeds an inbox packets by hand: one flagged as only
// requests runs its Posts unread by deliver, and stops at a malformed
// message; one without its trailer is dropped; a flagged one completes
// the reply it holds.
func TestDeliverTrailer(t *testing.T) {
	var ran atomic.Int64
	j := newJob(t, 1, Config{Logger: slog.New(slog.DiscardHandler)}, func(_ int, r *Registry) {
		r.Register("n", func(context.Context, int, []byte) ([]byte, error) { ran.Add(1); return nil, nil })
	})
	in := j.es[0].inboxes[0]
	post := message{kind: kindPost, payload: []byte("x")}
	p := appendMessage(appendMessage(nil, post), post)
	in.deliver(append(p, 0))                  // 2 Posts
	in.deliver(append(append(p, 0xff, 1), 0)) // 2 Posts, then an unknown kind
	in.deliver(nil)                           // no trailer
	in.deliver(append(append(p, 1, 0), 1))    // flagged: deliver scans it, and cuts the bad end
	waitFor(t, func() bool { return ran.Load() == 6 })
	num, ch, err := j.es[0].register(0)
	if err != nil {
		t.Fatal(err)
	}
	reply := appendMessage(appendMessage(nil, post), message{kind: kindReply, call: num, payload: []byte("r")})
	in.deliver(append(reply, flagOther))
	if res := <-ch; string(res.reply) != "r" {
		t.Errorf("reply %q, %v; want \"r\"", res.reply, res.err)
	}
	waitFor(t, func() bool { return ran.Load() == 7 })
}

// waitFor waits up to 5 seconds for ok.
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		time.Sleep(100 * time.Microsecond)
	}
}
