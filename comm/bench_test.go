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

// BenchmarkPingPongAnySource is BenchmarkPingPong's 8-byte case over
// shared memory (or the twin) with both receives posted as AnySource,
// AnyTag, on the default shard count and on few shards: a wildcard
// receive looks at every shard of the world's matching
// (Config.MatchShards).
func BenchmarkPingPongAnySource(b *testing.B) {
	tr := benchTransports()[len(benchTransports())-2] // shm where it exists, else the twin
	for _, wild := range []bool{false, true} {
		for _, shards := range []int{0, 16} {
			b.Run(fmt.Sprintf("transport=%s/any=%v/shards=%d", tr, wild, shards), func(b *testing.B) {
				ws := makers[tr](b, 2, Config{MatchShards: shards}).ws
				if wild {
					pingPongFrom(b, ws, 8, AnySource, AnyTag)
				} else {
					pingPong(b, ws, 8)
				}
			})
		}
	}
}

func pingPong(b *testing.B, ws []*World, size int) { pingPongFrom(b, ws, size, -2, -2) }

// pingPongFrom is pingPong with its receives posted for peer and tag
// (AnySource, AnyTag), or each for its real sender and tag (-2).
func pingPongFrom(b *testing.B, ws []*World, size, peer, tag int) {
	from := func(real int) int {
		if peer == -2 {
			return real
		}
		return peer
	}
	with := func(real int) int {
		if tag == -2 {
			return real
		}
		return tag
	}
	ctx := context.Background()
	out, in := make([]byte, size), make([]byte, size)
	done := make(chan error, 1)
	go func() {
		var err error
		for i := 0; i < b.N && err == nil; i++ {
			if _, err = ws[1].Recv(ctx, from(0), with(1), in); err == nil {
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
		if _, err := ws[0].Recv(ctx, from(1), with(2), out); err != nil {
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

// BenchmarkWindow is the OSU message-rate pattern: rank 0 posts windows of
// 64 Isends of 8 bytes, rank 1 windows of 64 Irecvs; both wait for all,
// and rank 1 acknowledges each window with an empty message.
func BenchmarkWindow(b *testing.B) {
	for _, tr := range benchTransports() {
		b.Run("transport="+tr, func(b *testing.B) {
			window(b, makers[tr](b, 2, Config{}).ws, 64)
		})
	}
}

func window(b *testing.B, ws []*World, win int) {
	ctx := context.Background()
	rounds := max(1, b.N/win)
	done := make(chan error, 1)
	go func() { done <- windowSide(ctx, ws[1], 0, win, rounds) }()
	b.ReportAllocs()
	b.ResetTimer()
	if err := windowSide(ctx, ws[0], 1, win, rounds); err != nil {
		b.Fatal(err)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(rounds*win)/b.Elapsed().Seconds(), "msgs/s")
}

// windowSide runs one rank's side of window: rank 0 sends, rank 1 receives.
func windowSide(ctx context.Context, w *World, peer, win, rounds int) error {
	reqs := make([]*Request, win)
	buf := make([]byte, 8)
	for range rounds {
		for i := range reqs {
			var err error
			if w.Rank() == 0 {
				reqs[i], err = w.Isend(peer, 1, buf)
			} else {
				reqs[i], err = w.Irecv(peer, 1, buf)
			}
			if err != nil {
				return err
			}
		}
		if _, err := Waitall(ctx, reqs...); err != nil {
			return err
		}
		var err error
		if w.Rank() == 0 {
			_, err = w.Recv(ctx, peer, 2, nil)
		} else {
			err = w.Send(ctx, peer, 2, nil)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkWindowOneCore runs the message-rate pattern on one goroutine:
// a window of 64 8-byte Isends, Waitall and Free, then a window of 64
// Irecvs, Waitall and Free at the other end. ns/op is per message, both
// ends' software cost with no cache line crossing cores, steadier than
// the two-process run.
func BenchmarkWindowOneCore(b *testing.B) {
	for _, tr := range benchTransports()[:2] {
		b.Run("transport="+tr, func(b *testing.B) {
			ws := makers[tr](b, 2, Config{}).ws
			windowOneCore(b, ws)
		})
	}
}

func windowOneCore(b *testing.B, ws []*World) {
	const win = 64
	ctx := context.Background()
	sreqs, rreqs := make([]*Request, win), make([]*Request, win)
	out, in := make([]byte, 8), make([]byte, 8)
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n += win {
		for i := range sreqs {
			var err error
			if sreqs[i], err = ws[0].Isend(1, 1, out); err != nil {
				b.Fatal(err)
			}
		}
		if err := WaitallInto(ctx, nil, sreqs...); err != nil {
			b.Fatal(err)
		}
		Free(sreqs...)
		for i := range rreqs {
			var err error
			if rreqs[i], err = ws[1].Irecv(0, 1, in); err != nil {
				b.Fatal(err)
			}
		}
		if err := WaitallInto(ctx, nil, rreqs...); err != nil {
			b.Fatal(err)
		}
		Free(rreqs...)
	}
}

// BenchmarkOneCore sends an 8-byte message and receives it on one
// goroutine: comm's and the transport's software cost per message, both
// ends, with no cache line crossing cores.
func BenchmarkOneCore(b *testing.B) {
	for _, tr := range benchTransports() {
		b.Run("transport="+tr, func(b *testing.B) { oneCore(b, makers[tr](b, 2, Config{}).ws, 8) })
	}
}

// oneCore sends size bytes from ws[0] and receives them at ws[1], b.N
// times, on the calling goroutine.
func oneCore(b *testing.B, ws []*World, size int) {
	ctx := context.Background()
	buf := make([]byte, size)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := ws[0].Send(ctx, 1, 1, buf); err != nil {
			b.Fatal(err)
		}
		if _, err := ws[1].Recv(ctx, 0, 1, buf); err != nil {
			b.Fatal(err)
		}
	}
}
