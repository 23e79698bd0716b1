package match

import (
	"fmt"
	"sync"
	"testing"
)

// BenchmarkTable measures matched pairs — a receive and its message, in
// either order — on tags no other goroutine uses, as a rank's goroutines
// each waiting on their own tag would. One op is one pair.
func BenchmarkTable(b *testing.B) {
	impls := []struct {
		name string
		make func() matcher
	}{
		{"sharded", func() matcher { return New[int, int](Config{}) }},
		{"sharded16", func() matcher { return New[int, int](Config{Shards: 16}) }},
		{"sharded64", func() matcher { return New[int, int](Config{Shards: 64}) }},
		{"ref", func() matcher { return NewRef[int, int]() }},
	}
	for _, g := range []int{1, 8, 64} {
		for _, impl := range impls {
			b.Run(fmt.Sprintf("goroutines=%d/impl=%s", g, impl.name), func(b *testing.B) {
				benchPairs(b, impl.make(), g)
			})
		}
	}
}

// benchPairs splits b.N pairs over g goroutines.
func benchPairs(b *testing.B, t matcher, g int) {
	b.ReportAllocs()
	var wg sync.WaitGroup
	b.ResetTimer()
	for id := range g {
		n := b.N / g
		if id < b.N%g {
			n++
		}
		wg.Go(func() { pairs(t, id, n) })
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}

// pairs matches n pairs on goroutine id's own tags, alternating which side
// comes first so both the posted and the unexpected paths run.
func pairs(t matcher, id, n int) {
	for i := range n {
		k := Key{Comm: 1, Tag: int32(id<<20 | i&(1<<20-1))}
		if i&1 == 0 {
			t.Post(k, i)
			t.Arrive(k, i)
		} else {
			t.Arrive(k, i)
			t.Post(k, i)
		}
	}
}

// BenchmarkWildPost measures a wildcard receive matching a message while
// the table holds other traffic: posted receives, which do not slow it.
func BenchmarkWildPost(b *testing.B) {
	for _, held := range []int{0, 1000} {
		for _, shards := range []int{16, 64, DefaultShards} {
			b.Run(fmt.Sprintf("held=%d/shards=%d", held, shards), func(b *testing.B) {
				benchWildPost(b, held, shards)
			})
		}
	}
}

// benchWildPost times an arrival and the wildcard receive that takes it,
// in a table of shards shards holding held exact receives.
func benchWildPost(b *testing.B, held, shards int) {
	tab := New[int, int](Config{Shards: shards})
	for i := range held {
		tab.Post(Key{Comm: 2, Tag: int32(i)}, i) // posted receives do not slow it
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		tab.Arrive(Key{Comm: 1, Tag: int32(i & 1023)}, i)
		tab.Post(Key{Comm: 1, Source: AnySource, Tag: AnyTag}, i)
	}
}

// BenchmarkWildPostBusy is BenchmarkWildPost with msgs unexpected
// messages that no receive takes held in other shards: the wildcard
// receive locks each of their shards, or past maxBusy all 256.
func BenchmarkWildPostBusy(b *testing.B) {
	for _, msgs := range []int{8, 2 * maxBusy} {
		b.Run(fmt.Sprintf("msgs=%d/shards=%d", msgs, DefaultShards), func(b *testing.B) {
			tab := New[int, int](Config{})
			for i := range msgs {
				tab.Arrive(Key{Comm: 2, Tag: int32(i)}, i)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				tab.Arrive(Key{Comm: 1, Tag: int32(i & 1023)}, i)
				tab.Post(Key{Comm: 1, Source: AnySource, Tag: AnyTag}, i)
			}
		})
	}
}
