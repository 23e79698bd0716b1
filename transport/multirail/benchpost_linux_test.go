package multirail

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkRailsPost streams 512 KiB messages (comm's rendezvous chunk)
// between namespaces over shaped rails, side by side: send waits for each
// message's acknowledgements before the next (what transport/tcp did
// with every long Data frame), post queues them back to back (Post, what
// it does now). of_ideal is the bandwidth over the sum of the rails'
// sampled bandwidths at that size.
func BenchmarkRailsPost(b *testing.B) { benchRailsPost(b, "1gbit", "500mbit") }

// BenchmarkRailsPost3 is BenchmarkRailsPost over a third rail of 250 Mbit.
func BenchmarkRailsPost3(b *testing.B) { benchRailsPost(b, "1gbit", "500mbit", "250mbit") }

func benchRailsPost(b *testing.B, rates ...string) {
	{
		n := makeRails(b, rates...)
		ca, cb := connect(b, n, len(rates), []byte("bench"))
		ps := sampleRails(b, ca, cb, 8<<20, 4<<20)
		for k := range ca {
			ca[k].Close()
			cb[k].Close()
		}
		const size = 512 << 10
		ideal := 0.0
		for _, p := range ps {
			ideal += p.Bandwidth(size)
		}
		for _, post := range []bool{false, true} {
			mode := map[bool]string{false: "send", true: "post"}[post]
			b.Run(fmt.Sprintf("rails=%s/size=%d/mode=%s", strings.Join(rates, "+"), size, mode), func(b *testing.B) {
				ca, cb := connect(b, n, len(rates), []byte("bench"))
				x, err := New(ca, ps, Config{})
				if err != nil {
					b.Fatal(err)
				}
				y, err := New(cb, ps, Config{})
				if err != nil {
					b.Fatal(err)
				}
				defer func() { x.Close(); y.Close() }()
				benchPost(b, x, y, size, post, ideal)
			})
		}
	}
}

// benchPost sends b.N messages of size bytes from x to y, each waited for
// or all posted, and reports the rate.
func benchPost(b *testing.B, x, y *Link, size int, post bool, ideal float64) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	msg := make([]byte, size)
	done := make(chan error, 1)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	t0 := time.Now()
	go func() {
		for range b.N {
			if _, err := y.Recv(ctx); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range b.N {
		var err error
		if post {
			err = x.Post(ctx, msg, func(error) {})
		} else {
			err = x.Send(ctx, msg)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := x.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	bw := float64(size) * float64(b.N) / time.Since(t0).Seconds()
	b.ReportMetric(bw*8/1e6, "Mbit/s")
	b.ReportMetric(bw/ideal, "of_ideal")
}
