package am

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestFlushCauses sees each cause counted: size with a small threshold,
// age with a short one and a busy sender, idle, and Flush.
func TestFlushCauses(t *testing.T) {
	noop := func(context.Context, int, []byte) ([]byte, error) { return nil, nil }
	ctx := testCtx(t)
	t.Run("size", func(t *testing.T) {
		size := len(appendMessage(nil, message{kind: kindPost, payload: make([]byte, 8)}))
		j := newJob(t, 2, Config{FlushBytes: 3 * size, FlushAge: time.Hour}, func(_ int, r *Registry) { r.Register("n", noop) })
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

// TestBlockedCallersFlush: goroutines that each block on a Call to one
// rank send their Calls once all of them block, without waiting for the
// age (an hour here) or an idle tick (a quarter of it).
func TestBlockedCallersFlush(t *testing.T) {
	j := newJob(t, 2, Config{FlushAge: time.Hour}, func(_ int, r *Registry) { r.Register("echo", echo) })
	ctx := testCtx(t)
	const callers, calls = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for range callers {
		wg.Go(func() {
			for range calls {
				if _, err := j.es[0].Call(ctx, 1, 0, []byte("x")); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if s := j.es[0].Stats(); s.Messages != callers*calls || s.AgeFlushes != 0 {
		t.Errorf("%+v; want %d messages and no age flush", s, callers*calls)
	}
}

// newTestOutbox is an outbox towards rank 1 of a 2-rank plan, outside
// any engine: what it sends stays in its queue.
func newTestOutbox() *outbox {
	cfg := Config{FlushAge: time.Hour}.withDefaults()
	e := &Engine{cfg: cfg, th: thresholds{bytes: cfg.FlushBytes, age: cfg.FlushAge},
		now: time.Now, wake: make(chan struct{}, 1), rt: plan(0, []int{0, 0}, false)}
	return newOutbox(e, 1)
}

// TestOutboxBlock drives outbox.block: a buffer goes when every message
// in it is a Call whose caller blocks, not before, not while it holds a
// Post, and not after a caller stopped waiting (unblock).
func TestOutboxBlock(t *testing.T) {
	call := message{kind: kindCall, call: 1}
	post := message{kind: kindPost}
	sent := func(o *outbox) int { return len(o.q) }
	t.Run("all blocked", func(t *testing.T) {
		o := newTestOutbox()
		g1, _ := o.append(call, false, 0, 1)
		g2, _ := o.append(call, false, 0, 1)
		o.block(g1, time.Now(), false)
		if sent(o) != 0 {
			t.Fatal("sent with one of two callers blocked")
		}
		o.block(g2, time.Now(), false)
		if sent(o) != 1 || o.e.Stats().IdleFlushes != 1 || o.e.Stats().Messages != 2 {
			t.Fatalf("%d packets, %+v; want one idle packet of 2 messages once both block", sent(o), o.e.Stats())
		}
		o.block(g1, time.Now(), false) // a late note about a sent buffer counts for nothing
		g3, _ := o.append(call, false, 0, 1)
		if g3 == g1 || sent(o) != 1 {
			t.Fatalf("generation %d after %d, %d packets; want a new generation, nothing sent", g3, g1, sent(o))
		}
	})
	t.Run("post", func(t *testing.T) {
		o := newTestOutbox()
		o.append(post, false, 0, 1)
		g, _ := o.append(call, false, 0, 1)
		o.block(g, time.Now(), false)
		if sent(o) != 0 {
			t.Fatal("sent a buffer holding a Post from a running goroutine")
		}
		o.block(g, time.Now(), true)
		if sent(o) != 1 {
			t.Fatal("an idle sender's buffer did not go")
		}
	})
	t.Run("unblock", func(t *testing.T) {
		o := newTestOutbox()
		g1, _ := o.append(call, false, 0, 1)
		g2, _ := o.append(call, false, 0, 1)
		o.block(g1, time.Now(), false)
		o.unblock(g1)
		o.block(g2, time.Now(), false)
		if sent(o) != 0 {
			t.Fatal("sent although the first caller stopped waiting")
		}
	})
}
