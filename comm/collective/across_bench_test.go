//go:build linux

package collective

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkAllreduceAcross times 8-byte allreduces across pretend hosts
// in one process (shared memory within a host, TCP loopback between
// hosts) side by side: the trees (NoPosts), every rank crossing
// (across.go, forced with AcrossCrowded) and the two levels
// (Hierarchy), with the trees' barrier for reference. ns/op is the time
// per collective at rank 0. Meaningful where the process has a CPU per
// rank: with fewer, every hop waits for the scheduler.
func BenchmarkAllreduceAcross(b *testing.B) {
	variants := []struct {
		name, op string
		cfg      Config
	}{
		{"trees", "barrier", Config{Model: Placement, NoPosts: true}},
		{"trees", "allreduce", Config{Model: Placement, NoPosts: true}},
		{"across", "allreduce", Config{Model: Placement, AcrossCrowded: true}},
		{"levels", "allreduce", Config{Model: Placement, Hierarchy: true}},
	}
	for _, layout := range []string{"aabb", "aaaabbbb"} {
		for _, v := range variants {
			b.Run(fmt.Sprintf("hosts=%s/variant=%s/op=%s", layout, v.name, v.op), func(b *testing.B) {
				benchAcross(b, layout, v.cfg, v.op)
			})
		}
	}
}

func benchAcross(b *testing.B, layout string, cfg Config, op string) {
	f := hostWorlds(b, strings.Split(layout, ""))
	ctx := context.Background()
	cs := newComms(b, ctx, f.ws, cfg)
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
