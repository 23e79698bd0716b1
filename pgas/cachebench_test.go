package pgas

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// shmJobConfig is shmJob with heaps of cfg.
func shmJobConfig(b *testing.B, cfg Config) *job {
	dir, err := os.MkdirTemp(shm.DefaultDir, "plexus-pgas-bench-")
	if err != nil {
		b.Skip(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	ws, err := commtest.SHMWorlds(2, "pgas-bench", dir, comm.Config{})
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range ws {
		b.Cleanup(func() { w.Close() })
	}
	return newJobOver(b, ws, cfg, nil)
}

const benchBytes = 1 << 20

// BenchmarkCache moves 1 MiB of int64, striped over 2 ranks over shm, to
// rank 0 and back: op=acquire is a read-only Acquire and Release,
// op=writeback a read-write one (the range there and back), and
// op=reads the same elements by Read delegates, blocking or with a
// window of ReadAsyncs, as a program without the cache would.
func BenchmarkCache(b *testing.B) {
	for _, chunk := range []int64{4 << 10, DefaultCacheChunk, 16<<10 - 64} {
		b.Run(fmt.Sprintf("op=acquire/chunk=%d/transport=shm", chunk), func(b *testing.B) {
			benchAcquire(b, Config{CacheChunk: chunk}, ReadOnly)
		})
	}
	b.Run(fmt.Sprintf("op=writeback/chunk=%d/transport=shm", DefaultCacheChunk), func(b *testing.B) {
		benchAcquire(b, Config{}, ReadWrite)
	})
	b.Run(fmt.Sprintf("op=write/chunk=%d/transport=shm", DefaultCacheChunk), func(b *testing.B) {
		benchAcquire(b, Config{}, WriteOnly)
	})
	// Blocking Reads of a whole MiB take seconds: they read 64 KiB, and
	// µs/MiB scales their time to a MiB.
	b.Run("op=reads/mode=blocking/size=64KiB/transport=shm", func(b *testing.B) { benchReads(b, 1, 64<<10) })
	b.Run("op=reads/mode=async/window=256/transport=shm", func(b *testing.B) { benchReads(b, 256, benchBytes) })
}

func benchAcquire(b *testing.B, cfg Config, mode Mode) {
	j := shmJobConfig(b, cfg)
	a := alloc[int64](b, j, benchBytes/8)[0]
	ctx := context.Background()
	b.SetBytes(benchBytes)
	b.ReportAllocs()
	for b.Loop() {
		c, err := a.Acquire(ctx, 0, a.Len(), mode)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/MiB")
}

// benchReads reads size bytes of elements with window ReadAsyncs in
// flight, or with blocking Reads when window is 1.
func benchReads(b *testing.B, window, size int) {
	j := shmJobConfig(b, Config{})
	a := alloc[int64](b, j, size/8)[0]
	ctx := context.Background()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	fs := make([]*Future[int64], 0, window)
	for b.Loop() {
		for i := range a.Len() {
			if window == 1 {
				if _, err := a.At(i).Read(ctx); err != nil {
					b.Fatal(err)
				}
				continue
			}
			if fs = append(fs, a.At(i).ReadAsync(ctx)); len(fs) == window {
				waitAll(b, ctx, fs)
				fs = fs[:0]
			}
		}
		waitAll(b, ctx, fs)
		fs = fs[:0]
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)*benchBytes/float64(size), "µs/MiB")
}

func waitAll(b *testing.B, ctx context.Context, fs []*Future[int64]) {
	for _, f := range fs {
		if _, err := f.Wait(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
