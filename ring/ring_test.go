package ring

import (
	"context"
	"sync/atomic"
	"testing"
)

// benchSlots is the ring size the benchmarks use.
const benchSlots = 256

// duet runs ping on one pinned goroutine and pong on another (two CPUs if
// the process has them) and times only the part after both are pinned.
func duet(b *testing.B, ping, pong func(n int)) {
	a, c, ok := cpuPair()
	if !ok {
		a, c = -1, -1
	}
	ready, start := make(chan struct{}, 2), make(chan struct{})
	run := func(f func(int)) func() {
		return func() { ready <- struct{}{}; <-start; f(b.N) }
	}
	done1, done2 := pinned(a, run(ping)), pinned(c, run(pong))
	<-ready
	<-ready
	b.ReportAllocs()
	b.ResetTimer()
	close(start)
	<-done1
	<-done2
	b.StopTimer()
}

// BenchmarkPingPong measures a round trip between two pinned goroutines:
// over a ring queue pair; over one padded word both sides spin on and
// write (the hardware floor); over two padded words, one written by each
// side (the floor for any queue pair that keeps one writer per cache line,
// as Smelt's does); and over two unbuffered channels.
func BenchmarkPingPong(b *testing.B) {
	for _, c := range []struct {
		name string
		f    func(*testing.B)
	}{
		{"impl=ring", benchPingPongRing}, {"impl=atomic", benchPingPongAtomic},
		{"impl=atomic2", benchPingPongAtomic2}, {"impl=chan", benchPingPongChan},
	} {
		b.Run(c.name, func(b *testing.B) {
			c.f(b)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/roundtrip")
		})
	}
}

func benchPingPongRing(b *testing.B) {
	x, y := NewPairs(benchSlots)
	ctx := context.Background()
	echo := func(p *Pair, first bool) func(int) {
		return func(n int) {
			buf := make([]byte, 8)
			for range n {
				if first {
					must(b, p.Send(ctx, buf))
				}
				_, err := p.Recv(ctx, buf)
				must(b, err)
				if !first {
					must(b, p.Send(ctx, buf))
				}
			}
		}
	}
	duet(b, echo(x, true), echo(y, false))
}

func must(b *testing.B, err error) {
	if err != nil {
		b.Error(err)
	}
}

func benchPingPongAtomic(b *testing.B) {
	var w struct {
		_ [cacheLine]byte
		v atomic.Uint64
		_ [cacheLine - 8]byte
	}
	side := func(odd uint64) func(int) {
		return func(n int) {
			for i := range uint64(n) {
				want := 2*i + odd // ping waits for even values, pong for odd
				for w.v.Load() != want {
				}
				w.v.Store(want + 1)
			}
		}
	}
	duet(b, side(0), side(1))
}

// twoLines holds two words, each alone on its cache line: the atomic2
// ping-pong's, one writer per line as in a queue pair.
type twoLines struct {
	_    [cacheLine]byte
	ping atomic.Uint64
	_    [cacheLine - 8]byte
	pong atomic.Uint64
	_    [cacheLine - 8]byte
}

func benchPingPongAtomic2(b *testing.B) {
	var w twoLines
	duet(b, func(n int) {
		for i := range uint64(n) {
			w.ping.Store(i + 1)
			for w.pong.Load() != i+1 {
			}
		}
	}, func(n int) {
		for i := range uint64(n) {
			for w.ping.Load() != i+1 {
			}
			w.pong.Store(i + 1)
		}
	})
}

func benchPingPongChan(b *testing.B) {
	there, back := make(chan [8]byte), make(chan [8]byte)
	duet(b, func(n int) {
		var m [8]byte
		for range n {
			there <- m
			m = <-back
		}
	}, func(n int) {
		for range n {
			back <- <-there
		}
	})
}

// BenchmarkStream measures one-way throughput of 8-byte messages between
// two pinned goroutines: a ring against a channel of the same capacity.
func BenchmarkStream(b *testing.B) {
	b.Run("impl=ring", benchStreamRing)
	b.Run("impl=chan", benchStreamChan)
}

func benchStreamRing(b *testing.B) {
	r := NewHeap(benchSlots)
	ctx := context.Background()
	b.SetBytes(8)
	duet(b, func(n int) {
		var m [8]byte
		for range n {
			must(b, r.Send(ctx, m[:]))
		}
	}, func(n int) {
		var m [8]byte
		for range n {
			_, err := r.Recv(ctx, m[:])
			must(b, err)
		}
	})
	reportRate(b)
}

func benchStreamChan(b *testing.B) {
	c := make(chan [8]byte, benchSlots)
	b.SetBytes(8)
	duet(b, func(n int) {
		var m [8]byte
		for range n {
			c <- m
		}
	}, func(n int) {
		for range n {
			<-c
		}
	})
	reportRate(b)
}

// reportRate reports one-way messages per second.
func reportRate(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
