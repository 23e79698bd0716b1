package graph

import (
	"math"
	"testing"
)

func TestSummarise(t *testing.T) {
	s := Summarise([]float64{4, 1, 3, 2})
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"min", s.Min, 1}, {"q1", s.FirstQuartile, 1.5}, {"median", s.Median, 2.5},
		{"q3", s.ThirdQuartile, 3.5}, {"max", s.Max, 4}, {"mean", s.Mean, 2.5},
		{"stddev", s.StdDev, math.Sqrt(5.0 / 3)}, {"hmean", s.HarmonicMean, 4 / (1 + 0.5 + 1.0/3 + 0.25)},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if one := Summarise([]float64{7}); one.Median != 7 || one.StdDev != 0 || one.HarmonicMean != 7 {
		t.Errorf("one sample: %+v", one)
	}
	if same := Summarise([]float64{5, 5, 5}); same.HarmonicStdDev > 1e-12 {
		t.Errorf("equal samples have harmonic stddev %v", same.HarmonicStdDev)
	}
}
