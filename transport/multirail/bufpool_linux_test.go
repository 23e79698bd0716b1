package multirail

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
)

// BenchmarkLongStream streams long messages between two Links over
// loopback rails, each released once received, with the receiving
// Link's pool of long buffers on (as a Link has it) and off (every chunk
// and message in a fresh array, as before the pool), side by side; it
// reports the page faults of the whole process per message
// (faults/op), and MB/s.
func BenchmarkLongStream(b *testing.B) {
	for _, size := range []int{1 << 20, 64 << 20} {
		for _, pool := range []bool{true, false} {
			b.Run(fmt.Sprintf("size=%d/pool=%v", size, pool), func(b *testing.B) {
				benchLongStream(b, size, pool)
			})
		}
	}
}

func benchLongStream(b *testing.B, size int, pool bool) {
	x, y := tcpPair(b, 2, Config{})
	if !pool {
		y.rbufs.drop()
	}
	ctx := context.Background()
	msg := make([]byte, size)
	for i := range msg {
		msg[i] = byte(i) // touched: its pages are not the faults counted
	}
	sem := make(chan struct{}, max(2, (4<<20)/size))
	var ru0, ru1 syscall.Rusage
	b.SetBytes(int64(size))
	b.ResetTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	var wg sync.WaitGroup
	wg.Add(b.N)
	go func() {
		for range b.N {
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				if err := x.Send(ctx, msg); err != nil {
					b.Error(err)
				}
				<-sem
			}()
		}
	}()
	for range b.N {
		m, err := y.Recv(ctx)
		if err != nil {
			b.Fatal(err)
		}
		y.Release(m)
	}
	wg.Wait()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	b.ReportMetric(float64(ru1.Minflt-ru0.Minflt)/float64(b.N), "faults/op")
}
