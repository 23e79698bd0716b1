package am

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// shmWorlds makes n worlds over shared memory in this process.
func shmWorlds(t testing.TB, n int) []*comm.World {
	t.Helper()
	dir, err := os.MkdirTemp(shm.DefaultDir, "plexus-am-test-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return cleanWorlds(t)(commtest.SHMWorlds(n, "am-test", dir, comm.Config{}))
}

// tcpWorlds makes n worlds over TCP on the loopback.
func tcpWorlds(t testing.TB, n int) []*comm.World {
	t.Helper()
	return cleanWorlds(t)(commtest.TCPWorlds(n, "am-test", comm.Config{}))
}

// cleanWorlds fails t on err and closes the worlds when t ends.
func cleanWorlds(t testing.TB) func([]*comm.World, error) []*comm.World {
	return func(ws []*comm.World, err error) []*comm.World {
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			t.Cleanup(func() { w.Close() })
		}
		return ws
	}
}

var transports = map[string]func(testing.TB, int) []*comm.World{"shm": shmWorlds, "tcp": tcpWorlds}

// counting starts an engine on each world with one handler, "count",
// that adds one to its rank's counter.
func counting(t testing.TB, ws []*comm.World, cfg Config) ([]*Engine, []atomic.Int64) {
	t.Helper()
	es := make([]*Engine, len(ws))
	counts := make([]atomic.Int64, len(ws))
	errs := make([]error, len(ws))
	var wg sync.WaitGroup
	for r, w := range ws {
		wg.Go(func() {
			var reg Registry
			reg.Register("count", func(context.Context, int, []byte) ([]byte, error) {
				counts[r].Add(1)
				return nil, nil
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			es[r], errs[r] = New(ctx, w, &reg, cfg)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		t.Cleanup(func() { e.Close(context.Background()) })
	}
	return es, counts
}

// TestTransports: posts between two ranks over shared memory and TCP
// arrive exactly once, and a Call returns.
func TestTransports(t *testing.T) {
	const n = 2000
	for name, mk := range transports {
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t)
			es, counts := counting(t, mk(t, 2), Config{})
			for src := range 2 {
				for range n {
					if err := es[src].Post(ctx, 1-src, 0, make([]byte, 32)); err != nil {
						t.Fatal(err)
					}
				}
			}
			for r := range 2 {
				if _, err := es[r].Call(ctx, 1-r, 0, nil); err != nil {
					t.Fatal(err)
				}
				if got := counts[1-r].Load(); got != n+1 {
					t.Errorf("rank %d handled %d messages from rank %d, want %d", 1-r, got, r, n+1)
				}
			}
		})
	}
}

// BenchmarkPost32 sends 32-byte Posts from rank 0 to rank 1, aggregated
// (the default Config) and direct (FlushBytes 1: one comm message per
// Post), over shared memory and TCP.
func BenchmarkPost32(b *testing.B) {
	for _, tr := range []string{"shm", "tcp"} {
		for _, impl := range []string{"aggregated", "direct"} {
			b.Run(fmt.Sprintf("transport=%s/impl=%s", tr, impl), func(b *testing.B) {
				cfg := Config{}
				if impl == "direct" {
					cfg.FlushBytes = 1
				}
				benchPosts(b, transports[tr](b, 2), cfg)
			})
		}
	}
}

func benchPosts(b *testing.B, ws []*comm.World, cfg Config) {
	es, counts := counting(b, ws, cfg)
	ctx := context.Background()
	args := make([]byte, 32)
	b.ReportAllocs()
	b.SetBytes(int64(len(args)))
	b.ResetTimer()
	for range b.N {
		if err := es[0].Post(ctx, 1, 0, args); err != nil {
			b.Fatal(err)
		}
	}
	if err := es[0].Flush(ctx); err != nil {
		b.Fatal(err)
	}
	for counts[1].Load() < int64(b.N) {
		time.Sleep(10 * time.Microsecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	s := es[0].Stats()
	b.ReportMetric(s.MessagesPerPacket(), "msgs/packet")
}

// BenchmarkPostSelf posts 32-byte messages from a rank to itself: the
// engine's own cost per message (encoding, buffers, decoding, handler
// dispatch) without a transport, which a packet to itself skips. Run it
// with -cpu 1, as a rank bound to one core runs.
func BenchmarkPostSelf(b *testing.B) {
	es, counts := counting(b, commtestWorlds(b, 1), Config{})
	ctx := context.Background()
	args := make([]byte, 32)
	b.ReportAllocs()
	b.SetBytes(int64(len(args)))
	b.ResetTimer()
	for range b.N {
		if err := es[0].Post(ctx, 0, 0, args); err != nil {
			b.Fatal(err)
		}
	}
	if err := es[0].Flush(ctx); err != nil {
		b.Fatal(err)
	}
	for counts[0].Load() < int64(b.N) {
		runtime.Gosched()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// commtestWorlds makes n in-memory worlds.
func commtestWorlds(t testing.TB, n int) []*comm.World {
	twin := commtest.NewTwin(n)
	ws := make([]*comm.World, n)
	for r := range n {
		w, err := twin.World(r, comm.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		ws[r] = w
	}
	return ws
}

// BenchmarkCall times blocking Calls from rank 0 to rank 1: one
// goroutine calling after each return (each Call finds the rank idle and
// goes at once), and goroutines=128 calling at once, which share packets.
func BenchmarkCall(b *testing.B) {
	for _, tr := range []string{"shm", "tcp"} {
		for _, g := range []int{1, 128} {
			b.Run(fmt.Sprintf("transport=%s/goroutines=%d", tr, g), func(b *testing.B) {
				es, _ := counting(b, transports[tr](b, 2), Config{})
				ctx := context.Background()
				call := func() {
					if _, err := es[0].Call(ctx, 1, 0, nil); err != nil {
						b.Error(err)
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				if g == 1 {
					for range b.N {
						call()
					}
				} else {
					b.SetParallelism((g + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							call()
						}
					})
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
				b.ReportMetric(es[0].Stats().MessagesPerPacket(), "msgs/packet")
			})
		}
	}
}

// BenchmarkCallers times blocking Calls from 1, 2 and 8 goroutines of
// rank 0 to rank 1 at once over shared memory, each calling again after
// each return: all of them blocked means nothing more will come, so
// their Calls should go without waiting for Config.FlushAge.
func BenchmarkCallers(b *testing.B) {
	for _, g := range []int{1, 2, 8} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			es, _ := counting(b, transports["shm"](b, 2), Config{})
			ctx := context.Background()
			var left atomic.Int64
			left.Store(int64(b.N))
			var wg sync.WaitGroup
			b.ResetTimer()
			for range g {
				wg.Go(func() {
					for left.Add(-1) >= 0 {
						if _, err := es[0].Call(ctx, 1, 0, nil); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			s := es[0].Stats()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			b.ReportMetric(s.MessagesPerPacket(), "msgs/packet")
			b.ReportMetric(float64(s.AgeFlushes), "age-flushes")
		})
	}
}
