package tcp

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// BenchmarkPingPong measures the round trip of an 8-byte Eager frame
// between two endpoints on loopback; ns/one-way is half of it.
func BenchmarkPingPong(b *testing.B) {
	pong := make(chan struct{}, 1)
	var eps []*Endpoint
	eps, _ = job(b, 2, func(c *Config) {
		if c.Rank == 0 {
			c.Deliver = func(int, frame.Header, []byte) { pong <- struct{}{} }
			return
		}
		// The queue toward rank 0 never holds more than one frame here, so
		// answering from Deliver cannot block.
		c.Deliver = func(_ int, h frame.Header, p []byte) { eps[1].Send(context.Background(), 0, h, p) }
	})
	ctx, p := context.Background(), make([]byte, 8)
	eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager}, p)
	<-pong
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	start := time.Now()
	for i := range b.N {
		if err := eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager, Seq: uint64(i)}, p); err != nil {
			b.Fatal(err)
		}
		<-pong
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N)/2, "ns/one-way")
}

// BenchmarkRate measures how many 8-byte frames per second one rank sends
// to another when 1, 16 or 256 goroutines send at once, and how many
// frames share each write.
func BenchmarkRate(b *testing.B) {
	for _, g := range []int{1, 16, 256} {
		b.Run(fmt.Sprintf("goroutines=%d/size=8", g), func(b *testing.B) { benchRate(b, g, 8) })
	}
}

func benchRate(b *testing.B, goroutines, size int) {
	var got atomic.Int64
	eps, _ := job(b, 2, func(c *Config) { c.Deliver = func(int, frame.Header, []byte) { got.Add(1) } })
	ctx := context.Background()
	eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager}, nil)
	for got.Load() < 1 {
		time.Sleep(time.Millisecond)
	}
	b.ReportAllocs()
	b.SetBytes(int64(size))
	before := eps[0].Stats()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range goroutines {
		n := b.N/goroutines + btoi(w < b.N%goroutines)
		wg.Go(func() { sendN(b, eps[0], n, size) })
	}
	wg.Wait()
	for got.Load() < int64(b.N)+1 {
		time.Sleep(20 * time.Microsecond)
	}
	elapsed := time.Since(start)
	st := eps[0].Stats()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(float64(st.Frames-before.Frames)/float64(max(st.Writes-before.Writes, 1)), "frames/write")
}

func sendN(b *testing.B, e *Endpoint, n, size int) {
	p := make([]byte, size)
	for i := range n {
		if err := e.Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Seq: uint64(i)}, p); err != nil {
			b.Error(err)
			return
		}
	}
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}
