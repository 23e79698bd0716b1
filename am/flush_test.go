package am

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestFlushCauses sees each cause counted: size with a small threshold,
// age with a short one and a busy sender, idle, and Flush.
func TestFlushCauses(t *testing.T) {
	noop := func(context.Context, int, []byte) ([]byte, error) { return nil, nil }
	ctx := testCtx(t)
	t.Run("size", func(t *testing.T) {
		j := newJob(t, 2, Config{FlushBytes: 3 * (msgHeader + 8), FlushAge: time.Hour}, func(_ int, r *Registry) { r.Register("n", noop) })
		for range 3 {
			j.es[0].Post(ctx, 1, 0, make([]byte, 8))
		}
		if s := j.es[0].Stats(); s.SizeFlushes != 1 || s.Messages != 3 || s.Packets != 1 {
			t.Errorf("%+v; want one packet of 3 messages, sent for its size", s)
		}
	})
	t.Run("flush", func(t *testing.T) {
		j := newJob(t, 2, Config{FlushAge: time.Hour}, func(_ int, r *Registry) { r.Register("n", noop) })
		j.es[0].Post(ctx, 1, 0, nil)
		j.es[0].Post(ctx, 1, 0, nil)
		if err := j.es[0].Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if s := j.es[0].Stats(); s.ExplicitFlushes != 1 || s.Messages != 2 {
			t.Errorf("%+v; want one explicit flush of 2 messages", s)
		}
	})
	t.Run("idle", func(t *testing.T) {
		// The ticks come every 12.5 ms: the first after the Post finds
		// the rank idle, long before the message is 50 ms old.
		j := newJob(t, 2, Config{FlushAge: 50 * time.Millisecond}, func(_ int, r *Registry) { r.Register("n", noop) })
		j.es[0].Post(ctx, 1, 0, nil)
		waitStats(t, j.es[0], func(s Stats) bool { return s.Packets == 1 })
		if s := j.es[0].Stats(); s.IdleFlushes != 1 {
			t.Errorf("%+v; want an idle flush", s)
		}
	})
	t.Run("age", func(t *testing.T) {
		j := newJob(t, 2, Config{FlushAge: 2 * time.Millisecond}, func(_ int, r *Registry) { r.Register("n", noop) })
		// Keep the rank busy posting to itself so it is never idle, while
		// one message waits for rank 1.
		j.es[0].Post(ctx, 1, 0, nil)
		for j.es[0].Stats().AgeFlushes == 0 && ctx.Err() == nil {
			j.es[0].Post(ctx, 0, 0, nil)
			runtime.Gosched()
		}
		if ctx.Err() != nil {
			t.Fatalf("no age flush: %+v", j.es[0].Stats())
		}
	})
}

func waitStats(t *testing.T, e *Engine, ok func(Stats) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok(e.Stats()) {
		if time.Now().After(deadline) {
			t.Fatalf("stats never got there: %+v", e.Stats())
		}
		time.Sleep(100 * time.Microsecond)
	}
}
