package comm

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// BenchmarkPingPong measures a round trip of one message each way between
// two ranks; ns/op is the round trip, half of it the one-way latency.
func BenchmarkPingPong(b *testing.B) {
	for _, tr := range benchTransports() {
		for _, size := range []int{8, 16 << 10, 1 << 20} {
			b.Run(fmt.Sprintf("transport=%s/size=%d", tr, size), func(b *testing.B) {
				pingPong(b, makers[tr](b, 2, Config{}).ws, size)
			})
		}
	}
}

// benchTransports lists the transports the benchmarks compare: shm too
// where it exists.
func benchTransports() []string {
	if _, ok := makers["shm"]; ok {
		return []string{"twin", "shm", "tcp"}
	}
	return []string{"twin", "tcp"}
}

func pingPong(b *testing.B, ws []*World, size int) {
	ctx := context.Background()
	out, in := make([]byte, size), make([]byte, size)
	done := make(chan error, 1)
	go func() {
		var err error
		for i := 0; i < b.N && err == nil; i++ {
			if _, err = ws[1].Recv(ctx, 0, 1, in); err == nil {
				err = ws[1].Send(ctx, 0, 2, in)
			}
		}
		done <- err
	}()
	b.ReportAllocs()
	b.SetBytes(int64(2 * size))
	b.ResetTimer()
	for range b.N {
		if err := ws[0].Send(ctx, 1, 1, out); err != nil {
			b.Fatal(err)
		}
		if _, err := ws[0].Recv(ctx, 1, 2, out); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

// BenchmarkMsgRate streams 8-byte messages from rank 0 to rank 1 with g
// goroutines on each side, each sender paired with a receiver by tag.
func BenchmarkMsgRate(b *testing.B) {
	for _, tr := range benchTransports() {
		for _, g := range []int{1, 100, 10000} {
			b.Run(fmt.Sprintf("transport=%s/goroutines=%d", tr, g), func(b *testing.B) {
				msgRate(b, makers[tr](b, 2, Config{}).ws, g)
			})
		}
	}
}

func msgRate(b *testing.B, ws []*World, g int) {
	ctx := context.Background()
	per := max(1, b.N/g)
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for tag := range g {
		wg.Add(2)
		go func() {
			defer wg.Done()
			buf := make([]byte, 8)
			for range per {
				if err := ws[0].Send(ctx, 1, tag, buf); err != nil {
					b.Error(err)
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			buf := make([]byte, 8)
			for range per {
				if _, err := ws[1].Recv(ctx, 0, tag, buf); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(per*g)/b.Elapsed().Seconds(), "msgs/s")
}
