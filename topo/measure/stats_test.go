package measure

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		name     string
		samples  []float64
		drop     float64
		mean, sd float64
	}{
		{"one", []float64{5}, 0.1, 5, 0},
		{"no drop", []float64{1, 2, 3, 4}, 0, 2.5, math.Sqrt(1.25)},
		// 10% of 9 is 0.9: nothing is dropped.
		{"rounds down", []float64{2, 2, 2, 2, 2, 2, 2, 2, 1000}, 0.1, (16 + 1000) / 9.0, -1},
		// 10% of 10 drops exactly the one outlier, wherever it is.
		{"drops largest", []float64{3, 1000, 3, 5, 5, 3, 5, 3, 5, 4}, 0.1, 4, math.Sqrt(8.0 / 9)},
		{"half", []float64{4, 1, 3, 2}, 0.5, 1.5, 0.5},
		{"equal", []float64{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}, 0.1, 7, 0},
		{"negative", []float64{-1, 1}, 0, 0, 1},
	} {
		mean, sd := Summarize(c.samples, c.drop)
		if !near(mean, c.mean) {
			t.Errorf("%s: mean %v, want %v", c.name, mean, c.mean)
		}
		if c.sd >= 0 && !near(sd, c.sd) {
			t.Errorf("%s: sd %v, want %v", c.name, sd, c.sd)
		}
	}
}

func TestSummarizeKeepsInput(t *testing.T) {
	s := []float64{3, 1, 2, 10}
	Summarize(s, 0.25)
	if s[0] != 3 || s[1] != 1 || s[2] != 2 || s[3] != 10 {
		t.Errorf("Summarize reordered its input: %v", s)
	}
}

func TestSummarizeEmpty(t *testing.T) {
	for _, s := range [][]float64{nil, {1}} {
		mean, sd := Summarize(s, 0.99)
		if len(s) == 0 && (!math.IsNaN(mean) || !math.IsNaN(sd)) {
			t.Errorf("Summarize(%v) = %v, %v, want NaN", s, mean, sd)
		}
		if len(s) == 1 && mean != 1 {
			t.Errorf("Summarize(%v, 0.99) = %v: 0.99 of one sample rounds down to none dropped", s, mean)
		}
	}
}

func TestSummarizeBadFrac(t *testing.T) {
	for _, f := range []float64{-0.1, 1, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Summarize(_, %v) did not panic", f)
				}
			}()
			Summarize([]float64{1}, f)
		}()
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
