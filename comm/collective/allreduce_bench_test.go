package collective

import (
	"context"
	"fmt"
	"testing"

	"github.com/plexus-hpc/plexus/tree"
)

// BenchmarkAllreduce times Allreduce across ranks of one process per
// algorithm side by side: the model's choice (algorithm=auto) and each
// one forced, over serialized shared-memory worlds (as bench/p2pprog
// runs them) and the comm twin. ns/op is the time per allreduce at rank 0.
func BenchmarkAllreduce(b *testing.B) {
	algos := append([]tree.Algorithm{0}, tree.Algorithms()...)
	for _, tr := range []string{"serial", "twin"} {
		if makers[tr] == nil {
			continue
		}
		for _, n := range []int{2, 3, 4} {
			for _, size := range []int{8, 4096, 65536} {
				for _, a := range algos {
					name := "auto"
					if a != 0 {
						name = a.String()
					}
					b.Run(fmt.Sprintf("transport=%s/ranks=%d/bytes=%d/algorithm=%s", tr, n, size, name), func(b *testing.B) {
						benchAllreduce(b, makers[tr](b, n), a, size)
					})
				}
			}
		}
	}
}

func benchAllreduce(b *testing.B, f fixture, a tree.Algorithm, size int) {
	ctx := context.Background()
	cs := newComms(b, ctx, f.ws, Config{Model: Placement, Allreduce: a})
	b.ReportAllocs()
	b.SetBytes(int64(size))
	b.ResetTimer()
	err := eachRank(len(cs), func(r int) error {
		in, out := make([]byte, size), make([]byte, size)
		add := func(acc, in []byte) {
			for i := range acc {
				acc[i] += in[i]
			}
		}
		for range b.N {
			if err := cs[r].Allreduce(ctx, in, out, add); err != nil {
				return err
			}
		}
		return nil
	})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
}
