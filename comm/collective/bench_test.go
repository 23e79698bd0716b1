package collective

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkCollective times one collective across ranks of one process,
// on the comm twin and over TCP loopback, 8-byte payloads as the OSU
// small-message tests use. ns/op is the time per collective at rank 0.
func BenchmarkCollective(b *testing.B) {
	for _, tr := range []string{"twin", "tcp"} {
		for _, op := range []string{"barrier", "bcast", "allreduce"} {
			for _, n := range []int{2, 4} {
				b.Run(fmt.Sprintf("transport=%s/op=%s/ranks=%d", tr, op, n), func(b *testing.B) {
					benchOp(b, makers[tr](b, n), op)
				})
			}
		}
	}
}

func benchOp(b *testing.B, f fixture, op string) {
	ctx := context.Background()
	cs := newComms(b, ctx, f.ws, Config{Model: Placement})
	b.ReportAllocs()
	b.SetBytes(8)
	b.ResetTimer()
	err := eachRank(len(cs), func(r int) error {
		run := opFunc(cs[r], op)
		for range b.N {
			if err := run(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "µs/op")
}

// opFunc returns one collective of the named kind on c.
func opFunc(c *Comm, op string) func(ctx context.Context) error {
	in, out := make([]byte, 8), make([]byte, 8)
	add := func(acc, in []byte) { acc[0] += in[0] }
	switch op {
	case "bcast":
		return func(ctx context.Context) error { return c.Broadcast(ctx, 0, out) }
	case "allreduce":
		return func(ctx context.Context) error { return c.Allreduce(ctx, in, out, add) }
	}
	return c.Barrier
}
