package pgas

import (
	"context"
	"sync"
	"testing"
)

// shmJob is 2 ranks in this process over shared memory.
func shmJob(b *testing.B) *job { return shmJobConfig(b, Config{}) }

// BenchmarkFetchAndAdd runs FetchAndAdd from rank 0 on a counter homed on
// rank 1 over shm: mode=blocking is one round trip after another (the
// delegate latency); mode=async keeps window delegates in flight and
// waits for them in turn, so they share packets.
func BenchmarkFetchAndAdd(b *testing.B) {
	b.Run("mode=blocking/transport=shm", func(b *testing.B) {
		j := shmJob(b)
		p := alloc[int64](b, j, 16)[0].At(8)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.FetchAndAdd(ctx, 1); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "µs/op")
	})
	b.Run("mode=async/window=256/transport=shm", func(b *testing.B) {
		j := shmJob(b)
		p := alloc[int64](b, j, 16)[0].At(8)
		ctx := context.Background()
		b.ReportAllocs()
		fs := make([]*Future[int64], 0, 256)
		var once sync.Once
		for b.Loop() {
			fs = append(fs, p.FetchAndAddAsync(ctx, 1))
			if len(fs) == cap(fs) {
				drain(b, ctx, fs, &once)
				fs = fs[:0]
			}
		}
		drain(b, ctx, fs, &once)
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		b.ReportMetric(j.es[0].Stats().MessagesPerPacket(), "msgs/packet")
	})
}

func drain(b *testing.B, ctx context.Context, fs []*Future[int64], once *sync.Once) {
	for _, f := range fs {
		if _, err := f.Wait(ctx); err != nil {
			once.Do(func() { b.Error(err) })
		}
	}
}
