package ring

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// pairedBurst is the round trips in one burst of BenchmarkPingPongPaired.
const pairedBurst = 5000

// BenchmarkPingPongPaired runs the ring, atomic and atomic2 ping-pongs of
// BenchmarkPingPong and the bare ones of floorPPs in alternating bursts of
// pairedBurst round trips between the same two pinned goroutines, b.N+20
// rounds, and reports each one's median ns per round trip and the ring's
// median ratio to atomic and atomic2, taken burst by burst. A host that
// slows down for a while slows neighbouring bursts alike, so the ratios
// hold where whole runs do not.
func BenchmarkPingPongPaired(b *testing.B) {
	x, y := NewPairs(benchSlots)
	names := []string{"ring", "atomic", "atomic2"}
	pp := []*pingPonger{newRingPP(x, y), newAtomicPP(), newAtomic2PP()}
	fn, fpp := floorPPs()
	names, pp = append(names, fn...), append(pp, fpp...)
	rounds := b.N + 20
	ns := make([][]float64, len(pp))
	var gate atomic.Uint64    // both sides add 1 before each burst
	align := func(k uint64) { // returns once both sides reached burst k
		gate.Add(1)
		for gate.Load() < 2*k {
		}
	}
	duet(b, func(int) {
		for k := range uint64(rounds * len(pp)) {
			i := int(k) % len(pp)
			align(k + 1)
			start := time.Now()
			pp[i].ping(pairedBurst)
			ns[i] = append(ns[i], float64(time.Since(start).Nanoseconds())/pairedBurst)
		}
	}, func(int) {
		for k := range uint64(rounds * len(pp)) {
			align(k + 1)
			pp[int(k)%len(pp)].pong(pairedBurst)
		}
	})
	for i, name := range names {
		b.ReportMetric(median(ns[i]), "ns/rt-"+name)
	}
	for i, name := range []string{"atomic", "atomic2"} {
		r := make([]float64, rounds)
		for k := range r {
			r[k] = ns[0][k] / ns[i+1][k]
		}
		b.ReportMetric(median(r), "ring/"+name)
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// pingPonger is one ping-pong that can be resumed burst after burst: ping
// and pong each run n round trips, on their own goroutine.
type pingPonger struct{ ping, pong func(n int) }

func newRingPP(x, y *Pair) *pingPonger {
	ctx := context.Background()
	return &pingPonger{func(n int) {
		buf := make([]byte, 8)
		for range n {
			x.Send(ctx, buf)
			x.Recv(ctx, buf)
		}
	}, func(n int) {
		buf := make([]byte, 8)
		for range n {
			y.Recv(ctx, buf)
			y.Send(ctx, buf)
		}
	}}
}

// counters holds where each side of a ping-pong stopped, each on its own
// line; only the side's goroutine touches its counter, between bursts.
type counters struct {
	ping uint64
	_    [cacheLine - 8]byte
	pong uint64
	_    [cacheLine - 8]byte
}

func newAtomicPP() *pingPonger {
	var w struct {
		_ [cacheLine]byte
		v atomic.Uint64
		_ [cacheLine - 8]byte
	}
	c := &counters{pong: 1} // ping waits for even values, pong for odd
	side := func(next *uint64) func(int) {
		return func(n int) {
			want := *next
			for range n {
				for w.v.Load() != want {
				}
				w.v.Store(want + 1)
				want += 2
			}
			*next = want
		}
	}
	return &pingPonger{side(&c.ping), side(&c.pong)}
}

func newAtomic2PP() *pingPonger {
	var w twoLines
	c := &counters{}
	return &pingPonger{func(n int) {
		k := c.ping // a local: a load from memory per poll costs time here
		for range n {
			k++
			w.ping.Store(k)
			for w.pong.Load() != k {
			}
		}
		c.ping = k
	}, func(n int) {
		k := c.pong
		for range n {
			k++
			for w.ping.Load() != k {
			}
			w.pong.Store(k)
		}
		c.pong = k
	}}
}
