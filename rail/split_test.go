package rail

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// checkCover fails unless chunks cover [0, n) exactly once, in order.
func checkCover(t *testing.T, chunks []Chunk, n int) {
	t.Helper()
	off := 0
	for _, c := range chunks {
		if c.Offset != off || c.Len <= 0 {
			t.Fatalf("chunks %+v do not cover %d bytes in order", chunks, n)
		}
		off += c.Len
	}
	if off != n {
		t.Fatalf("chunks %+v cover %d bytes, want %d", chunks, off, n)
	}
}

// share is the bytes chunks give rail r.
func share(chunks []Chunk, r int) int {
	n := 0
	for _, c := range chunks {
		if c.Rail == r {
			n += c.Len
		}
	}
	return n
}

// TestSplitEqualFinish checks the split against shares computed by hand
// for rails without latency: equal rails take halves; a rail of twice the
// bandwidth two thirds; a rail busy for the time half the message takes
// on it gets a quarter less; a rail slowed to half its rate a third;
// chunks finish together.
func TestSplitEqualFinish(t *testing.T) {
	const n = 6 << 20
	cfg := Config{Offload: time.Nanosecond}
	fast := lin(t, "fast", time.Nanosecond, 200e6)
	slow := lin(t, "slow", time.Nanosecond, 100e6)
	for _, c := range []struct {
		name  string
		rails []Rail
		want0 float64 // rail 0's share
	}{
		{"equal", []Rail{{Profile: slow}, {Profile: slow}}, 0.5},
		{"twice", []Rail{{Profile: fast}, {Profile: slow}}, 2.0 / 3},
		// Rail 1 idle after the time for n/4 bytes on it: of the
		// remaining 3n/4, each takes half, so rail 1 carries 3n/8.
		{"busy", []Rail{{Profile: slow}, {Profile: slow, Busy: slow.Predict(n / 4)}}, 5.0 / 8},
		// Rail 0 delivering at half its samples' rate: a third.
		{"slowed", []Rail{{Profile: slow, Slowdown: 2}, {Profile: slow}}, 1.0 / 3},
	} {
		chunks := Split(c.rails, n, cfg)
		checkCover(t, chunks, n)
		got := float64(share(chunks, 0)) / n
		if math.Abs(got-c.want0) > 0.001 {
			t.Errorf("%s: rail 0 carries %.4f of the message, want %.4f (%+v)", c.name, got, c.want0, chunks)
		}
		if d := chunks[0].Done - chunks[len(chunks)-1].Done; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("%s: chunks finish %v apart: %+v", c.name, d, chunks)
		}
	}
}

// TestSplitDropsRails checks the rails a split leaves out: one busy past
// the time the other needs for the whole message (Figure 2), one whose
// share would be under MinChunk, one down; and a message too small to
// pay for splitting goes whole on the rail that delivers it first.
func TestSplitDropsRails(t *testing.T) {
	a := lin(t, "a", 20*time.Microsecond, 100e6)
	crawl := lin(t, "crawl", 20*time.Microsecond, 100e3)
	for _, c := range []struct {
		name  string
		rails []Rail
		n     int
		want  []int // rails used
	}{
		{"busy past the end", []Rail{{Profile: a, Busy: time.Second}, {Profile: a}}, 1 << 20, []int{1}},
		{"share under MinChunk", []Rail{{Profile: a}, {Profile: crawl}, {Profile: a}}, 1 << 20, []int{0, 2}},
		{"down", []Rail{{Profile: a, Down: true}, {Profile: a}, {Profile: a}}, 1 << 20, []int{1, 2}},
		{"too small to split", []Rail{{Profile: a, Busy: time.Microsecond}, {Profile: a}}, 64, []int{1}},
		{"a byte under two MinChunks", []Rail{{Profile: a}, {Profile: a}, {Profile: a}}, 2*DefaultMinChunk - 1, []int{0}},
		{"two MinChunks", []Rail{{Profile: a}, {Profile: a}, {Profile: a}}, 2 * DefaultMinChunk, []int{1, 2}},
	} {
		chunks := Split(c.rails, c.n, Config{})
		checkCover(t, chunks, c.n)
		var used []int
		for _, ch := range chunks {
			used = append(used, ch.Rail)
		}
		if len(used) != len(c.want) {
			t.Errorf("%s: rails %v, want %v", c.name, used, c.want)
			continue
		}
		for i := range used {
			if used[i] != c.want[i] {
				t.Errorf("%s: rails %v, want %v", c.name, used, c.want)
				break
			}
		}
	}
	if got := Split([]Rail{{Profile: a, Down: true}}, 100, Config{}); got != nil {
		t.Errorf("every rail down: %+v, want nil", got)
	}
}

// TestSplitAgainstBruteForce compares the split of random messages over
// two random rails, busy or not, with the best of a thousand split points
// tried one by one: the dichotomy must finish no later than 0.5% after.
func TestSplitAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cfg := Config{}
	cfg.Validate()
	for range 300 {
		rails := []Rail{
			{Profile: lin(t, "x", time.Duration(1+rng.IntN(50000)), 1e6+rng.Float64()*1e9), Busy: time.Duration(rng.IntN(2)) * time.Duration(rng.IntN(5e6))},
			{Profile: lin(t, "y", time.Duration(1+rng.IntN(50000)), 1e6+rng.Float64()*1e9), Busy: time.Duration(rng.IntN(2)) * time.Duration(rng.IntN(5e6))},
		}
		n := 1 + rng.IntN(16<<20)
		got := Finish(Split(rails, n, cfg))
		if best := bruteFinish(rails, n, cfg); float64(got) > 1.005*float64(best)+1 {
			t.Fatalf("%d bytes over %+v: split finishes at %v, a split point tried by hand at %v", n, rails, got, best)
		}
	}
}

// bruteFinish is the earliest finish of n bytes over two rails among
// whole-message sends and a thousand split points.
func bruteFinish(rails []Rail, n int, cfg Config) time.Duration {
	_, best := Pick(rails, n)
	on := func(r Rail, k int) time.Duration { return r.Busy + cfg.Offload + r.Profile.Predict(k) }
	for i := 1; i < 1000; i++ {
		k := n * i / 1000
		if k < cfg.MinChunk || n-k < cfg.MinChunk {
			continue
		}
		best = min(best, max(on(rails[0], k), on(rails[1], n-k)))
	}
	return best
}

// TestPickStreamingRate: two rails whose short samples are all but equal
// (the slower one's a little shorter, as sampling noise makes them)
// differ in streaming rate, 8 and 16 ns a byte. A message short enough
// for both to carry within their latency goes on the one whose samples
// say so; one whose transfer at the slower rate would outlast that
// latency goes on the faster rail, its time counted by hand.
func TestPickStreamingRate(t *testing.T) {
	prof := func(name string, lat time.Duration, nsPerByte float64) Profile {
		p, err := NewProfile(name, []Sample{{Size: 4, Time: lat}, {Size: 4096, Time: lat},
			{Size: 8 << 20, Time: lat + time.Duration(nsPerByte*float64(8<<20))}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	rails := []Rail{{Profile: prof("fast", 9000, 8)}, {Profile: prof("slow", 8900, 16)}}
	// The slow rail's slope: 16 ns a byte over (8 MiB - 4 KiB) = 16.0078.
	slope := 16 * float64(8<<20) / float64(8<<20-4096)
	for _, c := range []struct {
		n    int
		rail int
		done time.Duration
	}{
		{64, 1, 8900},   // 64 B at 16 ns: 1 µs, within its latency
		{512, 1, 8900},  // 8.2 µs, still within
		{1024, 0, 9000}, // 16.4 µs on the slow rail: the fast one's 9 µs wins
		{4096, 0, time.Duration(math.Round(4096 * 8 * float64(8<<20) / float64(8<<20-4096)))}, // both at their rates
	} {
		r, done := Pick(rails, c.n)
		if r != c.rail || done != c.done {
			t.Errorf("Pick(%d B) = rail %d at %v, want rail %d at %v (slow rail's floor %.0f ns)", c.n, r, done, c.rail, c.done, float64(c.n)*slope)
		}
	}
	rails[0].Busy = 10 * time.Microsecond // the fast rail busy: the slow one, floored, delivers first
	if r, done := Pick(rails, 1024); r != 1 || done != time.Duration(math.Round(1024*slope)) {
		t.Errorf("Pick(1 KiB) with the fast rail busy = rail %d at %v, want rail 1 at %.0f ns", r, done, 1024*slope)
	}
}
