package rail

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// Sample is one measured transfer: Size bytes took Time, one way.
type Sample struct {
	Size int           `json:"size"`
	Time time.Duration `json:"time_ns"`
}

// Profile is a rail's predicted transfer time as a function of size.
// The zero Profile has no samples; Predict on it panics.
type Profile struct {
	Name    string   `json:"name"`
	Samples []Sample `json:"samples"` // by size, times non-decreasing
}

// NewProfile makes a profile from samples in any order. Sizes must be
// positive and distinct, times positive; at least one sample. Times are
// made non-decreasing in size (see the package doc).
func NewProfile(name string, samples []Sample) (Profile, error) {
	if len(samples) == 0 {
		return Profile{}, fmt.Errorf("%w: rail %q has no samples", ErrBadProfile, name)
	}
	s := append([]Sample(nil), samples...)
	sort.Slice(s, func(i, j int) bool { return s[i].Size < s[j].Size })
	for i, x := range s {
		if x.Size <= 0 || x.Time <= 0 {
			return Profile{}, fmt.Errorf("%w: rail %q: sample of %d bytes in %v: want both positive", ErrBadProfile, name, x.Size, x.Time)
		}
		if i > 0 && x.Size == s[i-1].Size {
			return Profile{}, fmt.Errorf("%w: rail %q: two samples of %d bytes", ErrBadProfile, name, x.Size)
		}
		if i > 0 && x.Time < s[i-1].Time {
			s[i].Time = s[i-1].Time
		}
	}
	return Profile{Name: name, Samples: s}, nil
}

// Predict returns the predicted time to transfer n bytes (n >= 0).
func (p Profile) Predict(n int) time.Duration {
	return time.Duration(math.Round(p.predict(float64(n))))
}

// predict is Predict in float nanoseconds, for sizes that are not whole.
func (p Profile) predict(n float64) float64 {
	s := p.Samples
	first, last := s[0], s[len(s)-1]
	switch {
	case n <= float64(first.Size):
		return float64(first.Time)
	case n >= float64(last.Size):
		return float64(last.Time) + (n-float64(last.Size))*p.slope()
	}
	i := sort.Search(len(s), func(i int) bool { return float64(s[i].Size) >= n })
	a, b := s[i-1], s[i]
	f := (n - float64(a.Size)) / float64(b.Size-a.Size)
	return float64(a.Time) + f*float64(b.Time-a.Time)
}

// capacity returns the most bytes the rail transfers within t
// nanoseconds, the inverse of predict; 0 when t is below the smallest
// sample's time.
func (p Profile) capacity(t float64) float64 {
	s := p.Samples
	first, last := s[0], s[len(s)-1]
	switch {
	case t < float64(first.Time):
		return 0
	case t >= float64(last.Time):
		return float64(last.Size) + (t-float64(last.Time))/p.slope()
	}
	// a is the last sample done within t, b the first that is not.
	i := sort.Search(len(s), func(i int) bool { return float64(s[i].Time) > t })
	a, b := s[i-1], s[i]
	f := (t - float64(a.Time)) / float64(b.Time-a.Time)
	return float64(a.Size) + f*float64(b.Size-a.Size)
}

// slope is the nanoseconds per byte beyond the last sample: the last
// rising segment's, or, where no segment rises, the last sample's average.
func (p Profile) slope() float64 {
	s := p.Samples
	for i := len(s) - 1; i > 0; i-- {
		if s[i].Time > s[i-1].Time {
			return float64(s[i].Time-s[i-1].Time) / float64(s[i].Size-s[i-1].Size)
		}
	}
	last := s[len(s)-1]
	return float64(last.Time) / float64(last.Size)
}

// Bandwidth returns the profile's predicted bytes per second for n-byte
// transfers.
func (p Profile) Bandwidth(n int) float64 {
	return float64(n) / p.Predict(n).Seconds()
}
