package rail

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// TestFileRoundTrip writes and reads back a profile file, and refuses
// files of another format, unknown fields or bad samples.
func TestFileRoundTrip(t *testing.T) {
	f := File{Local: "h1", Remote: "h2", Rails: []Profile{lin(t, "10.0.1.1>10.0.1.2", 20*time.Microsecond, 125e6)}}
	var b bytes.Buffer
	if err := WriteFile(&b, f); err != nil {
		t.Fatal(err)
	}
	g, err := ReadFile(&b)
	if err != nil {
		t.Fatal(err)
	}
	if g.Remote != "h2" || len(g.Rails) != 1 || g.Rails[0].Predict(3<<20) != f.Rails[0].Predict(3<<20) {
		t.Errorf("read back %+v", g)
	}
	for name, text := range map[string]string{
		"format":  `{"format": 2, "rails": []}`,
		"unknown": `{"format": 1, "rails": [], "extra": 1}`,
		"sample":  `{"format": 1, "rails": [{"name": "a", "samples": [{"size": 0, "time_ns": 5}]}]}`,
		"garbage": `not json`,
	} {
		if _, err := ReadFile(strings.NewReader(text)); !errors.Is(err, ErrBadProfile) {
			t.Errorf("%s: err %v, want ErrBadProfile", name, err)
		}
	}
}

// TestPredictionError checks the relative errors against hand-computed
// ones.
func TestPredictionError(t *testing.T) {
	p, err := NewProfile("a", []Sample{{100, 1000}, {200, 3000}})
	if err != nil {
		t.Fatal(err)
	}
	errs := PredictionError(p, []Sample{{150, 2500}, {200, 3000}, {100, 800}})
	want := []float64{-0.2, 0, 0.25}
	for i := range want {
		if math.Abs(errs[i]-want[i]) > 1e-12 {
			t.Errorf("errors %v, want %v", errs, want)
		}
	}
	if w := WorstError(errs); w != 0.25 {
		t.Errorf("worst %v, want 0.25", w)
	}
}

// FuzzReadFile checks that no file makes ReadFile panic, and that what it
// accepts predicts non-decreasing times.
func FuzzReadFile(f *testing.F) {
	f.Add(`{"format": 1, "rails": [{"name": "a", "samples": [{"size": 4, "time_ns": 5}, {"size": 8, "time_ns": 3}]}]}`)
	f.Add(`{"format": 1, "rails": [{"name": "a", "samples": []}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		g, err := ReadFile(strings.NewReader(text))
		if err != nil {
			return
		}
		for _, p := range g.Rails {
			prev := time.Duration(0)
			for _, n := range []int{0, 1, 4, 100, 1 << 20, 1 << 30} {
				if d := p.Predict(n); d < prev {
					t.Fatalf("profile %+v predicts %v for %d bytes, less than %v for fewer", p, d, n, prev)
				} else {
					prev = d
				}
			}
		}
	})
}
