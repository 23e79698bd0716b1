package am

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
)

// job is n engines over a commtest twin, one registry builder for all.
type job struct {
	twin *commtest.Twin
	ws   []*comm.World
	es   []*Engine
}

// newJob makes n ranks whose registries reg fills, and engines with cfg.
func newJob(t *testing.T, n int, cfg Config, reg func(rank int, r *Registry)) *job {
	t.Helper()
	j := &job{twin: commtest.NewTwin(n), ws: make([]*comm.World, n), es: make([]*Engine, n)}
	for r := range n {
		w, err := j.twin.World(r, comm.Config{})
		if err != nil {
			t.Fatal(err)
		}
		j.ws[r] = w
		t.Cleanup(func() { w.Close() })
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Go(func() {
			var rg Registry
			reg(r, &rg)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			j.es[r], errs[r] = New(ctx, j.ws[r], &rg, cfg)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for _, e := range j.es {
		t.Cleanup(func() { e.Close(context.Background()) })
	}
	return j
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func echo(_ context.Context, from int, args []byte) ([]byte, error) {
	return append([]byte(fmt.Sprintf("%d:", from)), args...), nil
}

func TestCallReply(t *testing.T) {
	j := newJob(t, 3, Config{}, func(_ int, r *Registry) { r.Register("echo", echo) })
	ctx := testCtx(t)
	for src := range 3 {
		for dst := range 3 {
			got, err := j.es[src].Call(ctx, dst, 0, []byte("hi"))
			if want := fmt.Sprintf("%d:hi", src); err != nil || string(got) != want {
				t.Errorf("Call %d->%d = %q, %v; want %q", src, dst, got, err, want)
			}
		}
	}
}

func TestCallErrors(t *testing.T) {
	j := newJob(t, 2, Config{MaxArgs: 16}, func(_ int, r *Registry) {
		r.Register("fail", func(context.Context, int, []byte) ([]byte, error) { return nil, errors.New("no such key") })
		r.Register("big", func(context.Context, int, []byte) ([]byte, error) { return make([]byte, 17), nil })
	})
	ctx := testCtx(t)
	e := j.es[0]
	_, err := e.Call(ctx, 1, 0, nil)
	var re *RemoteError
	if !errors.As(err, &re) || re.Rank != 1 || re.Handler != "fail" || re.Msg != "no such key" {
		t.Errorf("handler error: %v; want a RemoteError from rank 1's fail", err)
	}
	if _, err := e.Call(ctx, 1, 1, nil); !errors.As(err, &re) {
		t.Errorf("oversize reply: %v; want a RemoteError", err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"bad id", e.Post(ctx, 1, 7, nil), ErrBadHandler},
		{"oversize", e.Post(ctx, 1, 0, make([]byte, 17)), ErrTooLarge},
		{"bad rank", e.Post(ctx, 2, 0, nil), comm.ErrBadRank},
		{"negative rank", e.Post(ctx, -1, 0, nil), comm.ErrBadRank},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v; want %v", tc.name, tc.err, tc.want)
		}
	}
}

func TestMismatchedTables(t *testing.T) {
	twin := commtest.NewTwin(3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for r := range 3 {
		w, err := twin.World(r, comm.Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		wg.Go(func() {
			var reg Registry
			reg.Register("a", echo)
			if r == 2 {
				reg.Register("c", echo)
			} else {
				reg.Register("b", echo)
			}
			_, errs[r] = New(testCtx(t), w, &reg, Config{})
		})
	}
	wg.Wait()
	for r, err := range errs {
		if !errors.Is(err, ErrMismatch) {
			t.Errorf("rank %d: %v; want ErrMismatch", r, err)
		} else if want := `handler 1 is "b" at rank 0 but "c" at rank 2`; !contains(err.Error(), want) {
			t.Errorf("rank %d: %v; want it to say %s", r, err, want)
		}
	}
}

func contains(s, sub string) bool { return len(s) >= len(sub) && stringIndex(s, sub) >= 0 }

func stringIndex(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestRegistry(t *testing.T) {
	var r Registry
	if _, err := r.Register("", echo); !errors.Is(err, ErrRegistry) {
		t.Errorf("empty name: %v", err)
	}
	if _, err := r.Register("x", nil); !errors.Is(err, ErrRegistry) {
		t.Errorf("nil handler: %v", err)
	}
	if id, err := r.Register("x", echo); err != nil || id != 0 {
		t.Errorf("first: %v, %v", id, err)
	}
	if _, err := r.Register("x", echo); !errors.Is(err, ErrRegistry) {
		t.Errorf("duplicate: %v", err)
	}
	if id, ok := r.Lookup("x"); !ok || id != 0 {
		t.Errorf("Lookup: %v, %v", id, ok)
	}
	r.freeze()
	if _, err := r.Register("y", echo); !errors.Is(err, ErrRegistry) {
		t.Errorf("after freeze: %v", err)
	}
}

// TestPostsExactlyOnceInOrder: every rank posts N numbered messages to
// every rank from several goroutines; each receiver sees each message
// once, and each sending goroutine's messages in order.
func TestPostsExactlyOnceInOrder(t *testing.T) {
	const ranks, senders = 3, 4
	n := 5000
	if testing.Short() {
		n = 1000
	}
	type key struct{ src, g int }
	var mu sync.Mutex
	next := make([]map[key]uint32, ranks) // next expected sequence per (src, goroutine) at each rank
	var total atomic.Int64
	var bad atomic.Value
	j := newJob(t, ranks, Config{}, func(rank int, r *Registry) {
		next[rank] = make(map[key]uint32)
		r.Register("count", func(_ context.Context, from int, args []byte) ([]byte, error) {
			k := key{from, int(binary.LittleEndian.Uint32(args))}
			seq := binary.LittleEndian.Uint32(args[4:])
			mu.Lock()
			if next[rank][k] != seq {
				bad.Store(fmt.Sprintf("rank %d: from %v got %d, want %d", rank, k, seq, next[rank][k]))
			}
			next[rank][k] = seq + 1
			mu.Unlock()
			total.Add(1)
			return nil, nil
		})
	})
	ctx := testCtx(t)
	var wg sync.WaitGroup
	for src := range ranks {
		for g := range senders {
			wg.Go(func() {
				args := make([]byte, 32)
				binary.LittleEndian.PutUint32(args, uint32(g))
				for i := range n {
					binary.LittleEndian.PutUint32(args[4:], uint32(i))
					for dst := range ranks {
						if err := j.es[src].Post(ctx, dst, 0, args); err != nil {
							t.Error(err)
							return
						}
					}
				}
			})
		}
	}
	wg.Wait()
	want := int64(ranks * ranks * senders * n)
	for total.Load() < want && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(5 * time.Millisecond) // any duplicate would arrive now
	if got := total.Load(); got != want {
		t.Fatalf("%d messages handled, want %d", got, want)
	}
	if b := bad.Load(); b != nil {
		t.Fatal(b)
	}
	s := j.es[0].Stats()
	if s.MessagesPerPacket() < 2 {
		t.Errorf("stats %+v: %.1f messages per packet; aggregation should put many in one", s, s.MessagesPerPacket())
	}
	if s.SizeFlushes == 0 {
		t.Errorf("stats %+v: no buffer went for its size", s)
	}
}

// TestPostThenCallOrder: a Call runs after every Post sent before it from
// the same rank, so its reply sees them all.
func TestPostThenCallOrder(t *testing.T) {
	var sum [2]atomic.Int64
	j := newJob(t, 2, Config{}, func(rank int, r *Registry) {
		r.Register("add", func(_ context.Context, _ int, args []byte) ([]byte, error) {
			sum[rank].Add(int64(args[0]))
			return nil, nil
		})
		r.Register("get", func(context.Context, int, []byte) ([]byte, error) {
			return binary.LittleEndian.AppendUint64(nil, uint64(sum[rank].Load())), nil
		})
	})
	ctx := testCtx(t)
	for i := range 100 {
		if err := j.es[0].Post(ctx, 1, 0, []byte{1}); err != nil {
			t.Fatal(err)
		}
		if i%10 == 9 {
			got, err := j.es[0].Call(ctx, 1, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if v := binary.LittleEndian.Uint64(got); v != uint64(i+1) {
				t.Fatalf("after %d posts the call saw %d", i+1, v)
			}
		}
	}
}

func TestClose(t *testing.T) {
	j := newJob(t, 2, Config{}, func(_ int, r *Registry) { r.Register("echo", echo) })
	ctx := testCtx(t)
	if err := j.es[0].Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := j.es[0].Post(ctx, 1, 0, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("post after close: %v", err)
	}
	if _, err := j.es[0].Call(ctx, 1, 0, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after close: %v", err)
	}
	if err := j.es[0].Close(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("second close: %v", err)
	}
}

// TestCallContext: a Call whose context ends returns ctx.Err(), and a
// Call waiting when the engine closes fails with ErrClosed.
func TestCallContext(t *testing.T) {
	release := make(chan struct{})
	j := newJob(t, 2, Config{}, func(_ int, r *Registry) {
		r.Register("wait", func(ctx context.Context, _ int, _ []byte) ([]byte, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, nil
		})
	})
	defer close(release)
	ctx, cancel := context.WithTimeout(testCtx(t), 20*time.Millisecond)
	defer cancel()
	if _, err := j.es[0].Call(ctx, 1, 0, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("call past its deadline: %v", err)
	}
	done := make(chan error)
	go func() {
		_, err := j.es[1].Call(testCtx(t), 0, 0, nil)
		done <- err
	}()
	time.Sleep(5 * time.Millisecond)
	go j.es[0].Close(testCtx(t)) // its handler waits on ctx, which Close ends
	if err := j.es[1].Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("call waiting at close: %v; want ErrClosed", err)
	}
}

// TestCallAggregation: a lone Call goes at once, with no tick to wait
// for (FlushAge is an hour), while Calls from many goroutines share
// packets.
func TestCallAggregation(t *testing.T) {
	j := newJob(t, 2, Config{FlushAge: time.Hour}, func(_ int, r *Registry) { r.Register("echo", echo) })
	ctx := testCtx(t)
	if _, err := j.es[0].Call(ctx, 1, 0, nil); err != nil {
		t.Fatal(err)
	}
	const callers, calls = 64, 20
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for range calls {
				if _, err := j.es[0].Call(ctx, 1, 0, nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if s := j.es[0].Stats(); s.MessagesPerPacket() < 2 {
		t.Errorf("%d concurrent callers: %+v, %.1f messages per packet; want them to share packets", callers, s, s.MessagesPerPacket())
	}
}

// TestCallFromHandler: a handler may Call the rank that called it; the
// reply reaches it although its own source's handlers are held up.
func TestCallFromHandler(t *testing.T) {
	es := make([]*Engine, 2)
	j := newJob(t, 2, Config{}, func(rank int, r *Registry) {
		r.Register("echo", echo)
		r.Register("ask back", func(ctx context.Context, from int, args []byte) ([]byte, error) {
			return es[rank].Call(ctx, from, 0, args)
		})
	})
	copy(es, j.es)
	got, err := j.es[0].Call(testCtx(t), 1, 1, []byte("x"))
	if err != nil || string(got) != "1:x" {
		t.Fatalf("Call from a handler back to its caller: %q, %v; want \"1:x\"", got, err)
	}
}

// TestCallAsync: many Calls in flight at once each get their own reply;
// a Wait whose ctx ends returns ctx.Err(); after Close, Waits fail.
func TestCallAsync(t *testing.T) {
	block := make(chan struct{})
	j := newJob(t, 2, Config{}, func(_ int, r *Registry) {
		r.Register("echo", echo)
		r.Register("hang", func(ctx context.Context, _ int, _ []byte) ([]byte, error) {
			select {
			case <-block:
			case <-ctx.Done():
			}
			return nil, nil
		})
	})
	defer close(block)
	ctx := testCtx(t)
	rs := make([]*Reply, 100)
	for i := range rs {
		r, err := j.es[0].CallAsync(ctx, 1, 0, []byte(fmt.Sprint(i)))
		if err != nil {
			t.Fatal(err)
		}
		rs[i] = r
	}
	for i, r := range rs {
		if got, err := r.Wait(ctx); err != nil || string(got) != fmt.Sprintf("0:%d", i) {
			t.Errorf("reply %d: %q, %v", i, got, err)
		}
	}
	for i, r := range rs[:3] { // a second Wait returns the reply again
		if got, err := r.Wait(ctx); err != nil || string(got) != fmt.Sprintf("0:%d", i) {
			t.Errorf("reply %d, second Wait: %q, %v", i, got, err)
		}
	}
	if _, err := new(Reply).Wait(ctx); !errors.Is(err, errZeroReply) {
		t.Errorf("Wait on the zero Reply: %v", err)
	}
	if _, err := j.es[0].CallAsync(ctx, 1, 9, nil); !errors.Is(err, ErrBadHandler) {
		t.Errorf("bad handler: %v", err)
	}
	hung, err := j.es[0].CallAsync(ctx, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
	defer cancel()
	if _, err := hung.Wait(short); err != context.DeadlineExceeded {
		t.Errorf("Wait past its ctx: %v; want DeadlineExceeded", err)
	}
	if _, err := hung.Wait(ctx); err != context.DeadlineExceeded {
		t.Errorf("Wait after a Wait that timed out: %v; want DeadlineExceeded again, not a hang", err)
	}
	hung, _ = j.es[0].CallAsync(ctx, 1, 1, nil)
	j.es[0].Close(ctx)
	if _, err := hung.Wait(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Wait after Close: %v; want ErrClosed", err)
	}
}
