package multirail

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// BenchmarkRails streams messages between namespaces over a 1 Gbit and a
// 500 Mbit rail, for every way to split, side by side; of_ideal is the
// bandwidth over the sum of the rails' sampled bandwidths at that size.
func BenchmarkRails(b *testing.B) {
	n := makeRails(b, "1gbit", "500mbit")
	ca, cb := connect(b, n, 2, []byte("bench"))
	ps := sampleRails(b, ca, cb, 8<<20, 4<<20)
	for k := range ca {
		ca[k].Close()
		cb[k].Close()
	}
	for _, size := range []int{256 << 10, 1 << 20, 8 << 20} {
		ideal := ps[0].Bandwidth(size) + ps[1].Bandwidth(size)
		for _, s := range []struct {
			name  string
			split Split
		}{{"single", SplitSingle}, {"iso", SplitIso}, {"weighted", SplitWeighted}, {"plexus", SplitPlexus}} {
			b.Run(fmt.Sprintf("size=%d/impl=%s", size, s.name), func(b *testing.B) {
				ca, cb := connect(b, n, 2, []byte("bench"))
				benchStream(b, ca, cb, ps, s.split, size, ideal)
			})
		}
	}
}

func benchStream(b *testing.B, ca, cb []net.Conn, ps []rail.Profile, split Split, size int, ideal float64) {
	x, err := New(ca, ps, Config{Split: split})
	if err != nil {
		b.Fatal(err)
	}
	y, err := New(cb, ps, Config{Split: split})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { x.Close(); y.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	msg := make([]byte, size)
	done := make(chan error, 1)
	b.SetBytes(int64(size))
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
		if err := x.Send(ctx, msg); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	bw := float64(size) * float64(b.N) / time.Since(t0).Seconds()
	b.ReportMetric(bw*8/1e6, "Mbit/s")
	b.ReportMetric(bw/ideal, "of_ideal")
}
