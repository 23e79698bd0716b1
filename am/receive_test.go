package am

import (
	"context"
	"sync"
	"testing"
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
