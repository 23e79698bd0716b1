//go:build linux

package shm

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// BenchmarkPingPong measures round trips of 8-byte frames between two
// endpoints: in one process (each maps the segment itself) and between
// this process and a child. Each Deliver sends the next frame, so only the
// two receive goroutines run.
func BenchmarkPingPong(b *testing.B) {
	b.Run("procs=1/bytes=8", func(b *testing.B) {
		var eps []*Endpoint
		eps, _ = openN(b, shmDir(b), 2, func(c *Config) {
			if c.Rank == 1 {
				c.Deliver = func(p int, h frame.Header, m []byte) { eps[1].Send(context.Background(), p, h, m) }
			}
		})
		pingPong(b, eps[0], func(d func(int, frame.Header, []byte)) { eps[0].cfg.Deliver = d })
	})
	b.Run("procs=2/bytes=8", func(b *testing.B) {
		ep, s, _ := startChild(b, "echo")
		defer ep.Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: stopTag}, nil)
		pingPong(b, ep, func(d func(int, frame.Header, []byte)) { s.hook.Store(&d) })
	})
}

// pingPong runs b.N round trips from ep to rank 1; setDeliver installs
// ep's Deliver.
func pingPong(b *testing.B, ep *Endpoint, setDeliver func(func(int, frame.Header, []byte))) {
	msg := make([]byte, 8)
	var left atomic.Int64
	done := make(chan struct{})
	setDeliver(func(_ int, h frame.Header, _ []byte) {
		if h.Tag == stopTag {
			return // the child's echo of the stop
		}
		if left.Add(-1) > 0 {
			ep.Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, msg)
		} else {
			done <- struct{}{}
		}
	})
	warm := int64(1000)
	left.Store(warm)
	ep.Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, msg)
	<-done
	b.ReportAllocs()
	left.Store(int64(b.N))
	b.ResetTimer()
	ep.Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, msg)
	<-done
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2, "ns/one-way")
}

// BenchmarkStream measures one sender streaming frames to one receiver:
// the message rate at 8 bytes, bandwidth for chunked frames.
func BenchmarkStream(b *testing.B) {
	for _, size := range []int{8, 1 << 10, 64 << 10, 1 << 20} {
		b.Run("bytes="+itoa(size), func(b *testing.B) { stream(b, size) })
	}
}

func stream(b *testing.B, size int) {
	var got atomic.Int64
	done := make(chan struct{}, 1)
	var target int64
	eps, _ := openN(b, shmDir(b), 2, func(c *Config) {
		if c.Rank == 1 {
			c.Deliver = func(int, frame.Header, []byte) {
				if got.Add(1) == atomic.LoadInt64(&target) {
					done <- struct{}{}
				}
			}
		}
	})
	msg := make([]byte, size)
	atomic.StoreInt64(&target, int64(b.N))
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, msg); err != nil {
			b.Fatal(err)
		}
	}
	<-done
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkWake measures the wake-up cost: from Send to Deliver when the
// receiver sleeps on its futex.
func BenchmarkWake(b *testing.B) {
	var sent atomic.Int64
	var total time.Duration
	done := make(chan struct{})
	eps, _ := openN(b, shmDir(b), 2, func(c *Config) {
		if c.Rank == 1 {
			c.Deliver = func(int, frame.Header, []byte) {
				total += time.Duration(time.Now().UnixNano() - sent.Load())
				done <- struct{}{}
			}
		}
	})
	sendToSleeper(b, eps, &sent, done)
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/wake")
}

// sendToSleeper sends b.N empty frames from eps[0] to eps[1], each once
// rank 1 sleeps, with the time in sent, and waits for got after each.
func sendToSleeper(b *testing.B, eps []*Endpoint, sent *atomic.Int64, got <-chan struct{}) {
	w := eps[1].seg.wait(1)
	for range b.N {
		for atomic.LoadUint32(w) != 1 {
			time.Sleep(100 * time.Microsecond)
		}
		sent.Store(time.Now().UnixNano())
		eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, nil)
		<-got
	}
}

// BenchmarkWakePassive is BenchmarkWake for a passive receiver, asleep
// in Sleep: from Send until its own goroutine, woken, has polled the frame
// in.
func BenchmarkWakePassive(b *testing.B) {
	var sent atomic.Int64
	var total time.Duration
	eps, sinks := openN(b, shmDir(b), 2, func(c *Config) { c.Passive = c.Rank == 1 })
	got := make(chan struct{}, 1)
	go func() { // the passive rank's one goroutine
		for i := range b.N {
			for sinks[1].count() <= i {
				if !eps[1].PollUntil(0, nil) {
					eps[1].Sleep(context.Background(), nil)
				}
			}
			total += time.Duration(time.Now().UnixNano() - sent.Load())
			got <- struct{}{}
		}
	}()
	sendToSleeper(b, eps, &sent, got)
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/wake")
}

func itoa(n int) string {
	switch {
	case n >= 1<<20:
		return itoa(n>>20) + "MiB"
	case n >= 1<<10:
		return itoa(n>>10) + "KiB"
	}
	s := ""
	for ; n > 0 || s == ""; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// BenchmarkPull measures single-copy pulls from a second process's buffer,
// whole or in chunks, beside copy() inside this process: the bandwidth a
// rendezvous over Pull can reach.
func BenchmarkPull(b *testing.B) {
	ep, s, _ := startChild(b, "pull")
	defer ep.Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: stopTag}, nil)
	offer := s.wait(b, 1, 10*time.Second)[0].h
	src := pullBuffer(4 << 20)
	for _, n := range []int{4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20} {
		dst := make([]byte, n)
		for _, chunk := range []int{256 << 10, 4 << 20} {
			if chunk > n && chunk != 4<<20 {
				continue
			}
			b.Run(fmt.Sprintf("op=pull/bytes=%d/chunk=%d", n, chunk), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					for off := 0; off < n; off += chunk {
						if err := ep.Pull(1, offer.Aux+uint64(off), dst[off:min(n, off+chunk)]); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
		b.Run(fmt.Sprintf("op=copy/bytes=%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

// BenchmarkOneCore sends a frame and receives it by polling, on one
// goroutine: the software cost of a frame through the transport, both
// ends, with no cache line crossing cores (what a ping-pong adds to it is
// the hardware's). One caveat: the receiver reads the header right after
// the sender's stores of it, which may still sit in the store buffer, so
// its loads can stall on store forwarding in a way a receiver on another
// core does not.
func BenchmarkOneCore(b *testing.B) {
	var got atomic.Int64
	eps, _ := openN(b, shmDir(b), 2, func(c *Config) {
		if c.Rank == 1 {
			c.Deliver = func(int, frame.Header, []byte) { got.Add(1) }
		}
	})
	msg := make([]byte, 8)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range int64(b.N) {
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, msg); err != nil {
			b.Fatal(err)
		}
		for got.Load() <= i {
			eps[1].Poll(0)
		}
	}
}
