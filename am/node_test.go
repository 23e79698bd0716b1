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

// nodeConfig places the ranks of a twin on hosts given by their leaders.
func nodeConfig(leaders ...int) Config {
	return Config{NodeAggregation: true, leaders: leaders}
}

// TestNodeOrder: each rank posts numbered messages, and now and then a
// Call, to every rank from one goroutine, through relays; each rank runs
// every message exactly once, in order per source, with the source as
// from, and every Call's reply reaches its caller.
func TestNodeOrder(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 500
	}
	for _, leaders := range [][]int{{0, 0, 0, 3, 3, 3}, {0, 0, 2, 2, 4, 4}, {0, 1, 1, 1}} {
		t.Run(fmt.Sprint(leaders), func(t *testing.T) { testNodeOrder(t, leaders, n) })
	}
}

func testNodeOrder(t *testing.T, leaders []int, n int) {
	ranks := len(leaders)
	var mu sync.Mutex
	next := make([][]uint32, ranks) // next[dst][src]: the sequence number expected
	var total atomic.Int64
	var bad atomic.Value
	j := newJob(t, ranks, nodeConfig(leaders...), func(rank int, r *Registry) {
		next[rank] = make([]uint32, ranks)
		r.Register("count", func(_ context.Context, from int, args []byte) ([]byte, error) {
			src, seq := int(binary.LittleEndian.Uint32(args)), binary.LittleEndian.Uint32(args[4:])
			mu.Lock()
			if src != from || next[rank][src] != seq {
				bad.Store(fmt.Sprintf("rank %d: from %d (sent by %d) got %d, want %d", rank, from, src, seq, next[rank][src]))
			}
			next[rank][src] = seq + 1
			mu.Unlock()
			total.Add(1)
			return binary.LittleEndian.AppendUint32(nil, uint32(rank)<<16|seq), nil
		})
	})
	ctx := testCtx(t)
	var wg sync.WaitGroup
	for src := range ranks {
		wg.Go(func() { sendCounted(ctx, t, j.es[src], n) })
	}
	wg.Wait()
	want := int64(ranks * ranks * n)
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
}

// sendCounted sends n numbered messages from e to every rank, one in 97
// a Call whose reply must name its destination and number.
func sendCounted(ctx context.Context, t *testing.T, e *Engine, n int) {
	args := make([]byte, 32)
	binary.LittleEndian.PutUint32(args, uint32(e.Rank()))
	for i := range n {
		binary.LittleEndian.PutUint32(args[4:], uint32(i))
		for dst := range e.Size() {
			if i%97 != 0 {
				if err := e.Post(ctx, dst, 0, args); err != nil {
					t.Error(err)
					return
				}
				continue
			}
			got, err := e.Call(ctx, dst, 0, args)
			if err != nil || len(got) != 4 || binary.LittleEndian.Uint32(got) != uint32(dst)<<16|uint32(i) {
				t.Errorf("call %d from %d to %d: %x, %v", i, e.Rank(), dst, got, err)
				return
			}
		}
	}
}

// TestNodeRelaysOnly: with node aggregation, only the pair ranks send
// packets to the other host, and they carry everyone's messages.
func TestNodeRelaysOnly(t *testing.T) {
	j := newJob(t, 6, nodeConfig(0, 0, 0, 3, 3, 3), func(_ int, r *Registry) { r.Register("echo", echo) })
	ctx := testCtx(t)
	for src := range 6 {
		for dst := range 6 {
			got, err := j.es[src].Call(ctx, dst, 0, []byte("x"))
			if want := fmt.Sprintf("%d:x", src); err != nil || string(got) != want {
				t.Fatalf("call %d to %d: %q, %v; want %q", src, dst, got, err, want)
			}
		}
	}
	for r, e := range j.es {
		s := e.Stats()
		if pair := r == 1 || r == 3; (s.RemotePackets > 0) != pair {
			t.Errorf("rank %d: %d packets to the other host; only pair ranks 1 and 3 should send any", r, s.RemotePackets)
		}
	}
}

// lossJob is 2 hosts of 2 ranks ({0,1}, {2,3}; pair ranks 1 and 2)
// with a handler that hangs until the test ends and an echo.
func lossJob(t *testing.T) *job {
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	return newJob(t, 4, nodeConfig(0, 0, 2, 2), func(_ int, r *Registry) {
		r.Register("hang", func(ctx context.Context, _ int, _ []byte) ([]byte, error) {
			select {
			case <-block:
			case <-ctx.Done():
			}
			return nil, nil
		})
		r.Register("echo", echo)
	})
}

// TestNodeLoss: calls relayed towards rank 3 fail with ErrPeerLost when
// the relay on either host or rank 3 itself is lost, and so do later
// calls on that route; routes without the lost rank still work.
func TestNodeLoss(t *testing.T) {
	for _, c := range []struct {
		kill int
		live [][2]int // (src, dst) calls that must still work
		dead [][2]int // calls that must fail
	}{
		{kill: 1, live: [][2]int{{3, 2}, {0, 0}}, dead: [][2]int{{0, 3}, {0, 2}, {3, 0}}},
		{kill: 2, live: [][2]int{{0, 1}, {3, 3}}, dead: [][2]int{{0, 3}, {3, 0}, {1, 3}}},
		{kill: 3, live: [][2]int{{0, 2}, {2, 0}, {1, 2}}, dead: [][2]int{{0, 3}, {1, 3}}},
	} {
		t.Run(fmt.Sprintf("kill=%d", c.kill), func(t *testing.T) {
			j := lossJob(t)
			ctx := testCtx(t)
			errs := make(chan error, 4)
			for range 4 {
				go func() {
					_, err := j.es[0].Call(ctx, 3, 0, nil)
					errs <- err
				}()
			}
			time.Sleep(10 * time.Millisecond) // let the calls reach rank 3
			j.twin.Kill(c.kill)
			for range 4 {
				if err := <-errs; !errors.Is(err, comm.ErrPeerLost) {
					t.Errorf("waiting call 0 to 3: %v; want ErrPeerLost", err)
				}
			}
			for _, sd := range c.dead {
				waitErr(t, func() error { _, err := j.es[sd[0]].Call(ctx, sd[1], 1, nil); return err })
			}
			for _, sd := range c.live {
				if _, err := j.es[sd[0]].Call(ctx, sd[1], 1, nil); err != nil {
					t.Errorf("call %d to %d: %v", sd[0], sd[1], err)
				}
			}
		})
	}
}

// TestNodeMismatch: ranks that disagree on NodeAggregation all fail New.
func TestNodeMismatch(t *testing.T) {
	twin := commtest.NewTwin(3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for r := range 3 {
		w, err := twin.World(r, comm.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		wg.Go(func() {
			var reg Registry
			reg.Register("echo", echo)
			e, err := New(testCtx(t), w, &reg, Config{NodeAggregation: r != 2})
			if err == nil {
				e.Close(context.Background())
			}
			errs[r] = err
		})
	}
	wg.Wait()
	for r, err := range errs {
		if !errors.Is(err, ErrMismatch) || !contains(err.Error(), "NodeAggregation") {
			t.Errorf("rank %d: %v; want ErrMismatch naming NodeAggregation", r, err)
		}
	}
}
