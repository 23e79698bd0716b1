package rail

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// lin is a profile sampled at powers of two from 4 B to 8 MiB of a rail
// with latency lat and bandwidth bw bytes per second.
func lin(t testing.TB, name string, lat time.Duration, bw float64) Profile {
	t.Helper()
	var s []Sample
	for n := 4; n <= 8<<20; n *= 2 {
		s = append(s, Sample{Size: n, Time: lat + time.Duration(float64(n)/bw*1e9)})
	}
	p, err := NewProfile(name, s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPredictInterpolates checks Predict against values computed by hand
// from four samples given out of order, one of them faster than a
// smaller one (raised to its time).
func TestPredictInterpolates(t *testing.T) {
	p, err := NewProfile("a", []Sample{{800, 7000}, {100, 1000}, {400, 2500}, {200, 3000}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n    int
		want time.Duration
	}{
		{0, 1000}, {50, 1000}, {100, 1000}, // below the first sample: its time
		{150, 2000},               // halfway from (100, 1000) to (200, 3000)
		{300, 3000},               // (400, 2500) raised to 3000: flat
		{600, 5000},               // halfway from (400, 3000) to (800, 7000)
		{800, 7000}, {1000, 9000}, // beyond: the last slope, 10 ns a byte
	} {
		if got := p.Predict(c.n); got != c.want {
			t.Errorf("Predict(%d) = %v, want %v", c.n, got, c.want)
		}
	}
	for _, c := range []struct{ t, want float64 }{
		// Within 3000 ns, the flat stretch up to 400 bytes is done.
		{999, 0}, {1000, 100}, {2000, 150}, {3000, 400}, {5000, 600}, {9000, 1000},
	} {
		if got := p.capacity(c.t); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("capacity(%v ns) = %v, want %v", c.t, got, c.want)
		}
	}
}

// TestCapacityInvertsPredict checks on random profiles that capacity is
// the inverse of predict: the bytes carried in the time predicted for n
// are at least n, and predict of the capacity within t is at most t.
func TestCapacityInvertsPredict(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var s []Sample
		size, tm := 1+rng.IntN(16), time.Duration(1+rng.IntN(1000))
		for range 1 + rng.IntN(8) {
			s = append(s, Sample{size, tm})
			size += 1 + rng.IntN(1<<16)
			tm += time.Duration(rng.IntN(100000)) // may stay flat
		}
		p, err := NewProfile("r", s)
		if err != nil {
			t.Fatal(err)
		}
		n := float64(rng.IntN(1 << 18))
		if c := p.capacity(p.predict(n)); c < n-1e-6*n-1e-6 {
			t.Fatalf("profile %v: capacity(predict(%v)) = %v", s, n, c)
		}
		tt := float64(s[0].Time) + float64(rng.IntN(1<<22))
		if got := p.predict(p.capacity(tt)); got > tt+1e-6*tt {
			t.Fatalf("profile %v: predict(capacity(%v)) = %v", s, tt, got)
		}
	}
}

// TestNewProfileRefuses checks the samples a profile cannot be made of.
func TestNewProfileRefuses(t *testing.T) {
	for name, s := range map[string][]Sample{
		"none":      nil,
		"zero size": {{0, 10}},
		"zero time": {{4, 0}},
		"twice":     {{4, 10}, {8, 20}, {4, 12}},
	} {
		if _, err := NewProfile("x", s); !errors.Is(err, ErrBadProfile) {
			t.Errorf("%s: err %v, want ErrBadProfile", name, err)
		}
	}
}

// TestBandwidth checks that a profile's bandwidth grows towards the
// rail's as sizes grow (time is size over bandwidth, not the reverse).
func TestBandwidth(t *testing.T) {
	p := lin(t, "a", 20*time.Microsecond, 125e6)
	small, large := p.Bandwidth(4<<10), p.Bandwidth(8<<20)
	if !(small < large && math.Abs(large-125e6)/125e6 < 0.01) {
		t.Errorf("bandwidth 4 KiB %.0f, 8 MiB %.0f B/s; want rising to 125e6", small, large)
	}
}
