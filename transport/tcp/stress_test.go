package tcp

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// counter checks exactly-once, in-order delivery per (source, tag): each
// sending goroutine owns one tag and numbers its frames from 0.
type counter struct {
	mu    sync.Mutex
	next  map[[2]int32]uint64
	total atomic.Int64
	bad   atomic.Value // first error, a string
}

func newCounter() *counter { return &counter{next: map[[2]int32]uint64{}} }

func (c *counter) deliver(peer int, h frame.Header, p []byte) {
	key := [2]int32{int32(peer), h.Tag}
	c.mu.Lock()
	want := c.next[key]
	c.next[key] = want + 1
	c.mu.Unlock()
	if h.Seq != want || int(h.Source) != peer || len(p) != 8 || binary.LittleEndian.Uint64(p) != h.Seq^uint64(h.Tag) {
		c.bad.CompareAndSwap(nil, fmt.Sprintf("from rank %d tag %d: seq %d, want %d (payload %x)", peer, h.Tag, h.Seq, want, p))
	}
	c.total.Add(1)
}

// TestStress has every rank send from many goroutines to every other rank
// and counts every frame exactly once, in order per (peer, tag).
func TestStress(t *testing.T) {
	ranks, goroutines, frames := 4, 64, 500
	if testing.Short() {
		goroutines, frames = 32, 100
	}
	counters := make([]*counter, ranks)
	for i := range counters {
		counters[i] = newCounter()
	}
	eps, _ := job(t, ranks, func(c *Config) { c.Deliver = counters[c.Rank].deliver; c.QueueBytes = 16 << 10 })
	var wg sync.WaitGroup
	for _, e := range eps {
		for g := range goroutines {
			wg.Go(func() { sendStream(t, e, ranks, int32(g), frames) })
		}
	}
	wg.Wait()
	want := int64((ranks - 1) * goroutines * frames)
	for r, c := range counters {
		waitCount(t, c, want)
		if bad := c.bad.Load(); bad != nil {
			t.Fatalf("rank %d: %s", r, bad)
		}
	}
	st := eps[0].Stats()
	t.Logf("rank 0: %d frames in %d writes (%.1f frames per write)", st.Frames, st.Writes, float64(st.Frames)/float64(st.Writes))
}

// sendStream sends frames numbered 0..n-1 on one tag to every other rank,
// interleaving the peers.
func sendStream(t *testing.T, e *Endpoint, ranks int, tag int32, n int) {
	var p [8]byte
	for i := range uint64(n) {
		for peer := range ranks {
			if peer == e.Rank() {
				continue
			}
			binary.LittleEndian.PutUint64(p[:], i^uint64(tag))
			if err := e.Send(context.Background(), peer, frame.Header{Kind: frame.Eager, Tag: tag, Seq: i}, p[:]); err != nil {
				t.Error(err)
				return
			}
		}
	}
}

func waitCount(t *testing.T, c *counter, want int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for c.total.Load() < want && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := c.total.Load(); got != want {
		t.Fatalf("delivered %d frames, want %d", got, want)
	}
	time.Sleep(10 * time.Millisecond) // a duplicate would show up now
	if got := c.total.Load(); got != want {
		t.Fatalf("delivered %d frames, want %d", got, want)
	}
}

// TestCoalescing: small frames sent at once by many goroutines leave in
// fewer writes than frames.
func TestCoalescing(t *testing.T) {
	c := newCounter()
	eps, _ := job(t, 2, func(cfg *Config) { cfg.Deliver = c.deliver })
	eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Credit, Tag: -1}, make([]byte, 8)) // connect first
	waitCount(t, c, 1)
	before := eps[0].Stats()
	var wg sync.WaitGroup
	goroutines, frames := 64, 200
	for g := range goroutines {
		wg.Go(func() { sendStream(t, eps[0], 2, int32(g), frames) })
	}
	wg.Wait()
	waitCount(t, c, int64(goroutines*frames+1))
	st := eps[0].Stats()
	f, w := st.Frames-before.Frames, st.Writes-before.Writes
	t.Logf("%d frames in %d writes (%.1f frames per write)", f, w, float64(f)/float64(w))
	if f != uint64(goroutines*frames) || float64(f)/float64(w) < 2 {
		t.Fatalf("%d frames in %d writes: want the frames of %d goroutines combined, at least 2 per write", f, w, goroutines)
	}
}
