package graph

import (
	"math"
	"slices"
)

// Stats summarises a sample as the Graph500 reference prints it.
type Stats struct {
	Min, FirstQuartile, Median, ThirdQuartile, Max float64
	Mean, StdDev                                   float64
	// HarmonicMean and HarmonicStdDev are for rates (TEPS): the mean
	// of the inverses, inverted, and its standard deviation carried
	// through the inversion, as the reference computes them.
	HarmonicMean, HarmonicStdDev float64
}

// Summarise computes the statistics of x; the quartiles average the two
// middle elements as the reference does. An empty x gives zero Stats.
func Summarise(x []float64) Stats {
	if len(x) == 0 {
		return Stats{}
	}
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	st := Stats{
		Min:           s[0],
		FirstQuartile: (s[(n-1)/4] + s[n/4]) / 2,
		Median:        (s[(n-1)/2] + s[n/2]) / 2,
		ThirdQuartile: (s[n-1-(n-1)/4] + s[n-1-n/4]) / 2,
		Max:           s[n-1],
	}
	var sum, inv float64
	for _, v := range s {
		sum += v
		inv += 1 / v
	}
	st.Mean = sum / float64(n)
	st.HarmonicMean = float64(n) / inv
	if n > 1 {
		var d2, h2 float64
		for _, v := range s {
			d2 += (v - st.Mean) * (v - st.Mean)
			h := 1/v - 1/st.HarmonicMean
			h2 += h * h
		}
		st.StdDev = math.Sqrt(d2 / float64(n-1))
		st.HarmonicStdDev = math.Sqrt(h2) / float64(n-1) * st.HarmonicMean * st.HarmonicMean
	}
	return st
}
