package measure

import (
	"math"
	"slices"
)

// Summarize drops the largest dropFrac of samples (rounded down to whole
// samples, as Smelt's evaluate-pairwise.py does) and returns the mean and
// population standard deviation of the rest. Dropping the top tail removes
// samples disturbed by interrupts, preemption and the clock's own hiccups,
// which only ever make a sample larger.
//
// Summarize does not modify samples. It returns NaN, NaN when no sample is
// left; dropFrac must be in [0, 1), else it panics (a programmer error).
func Summarize(samples []float64, dropFrac float64) (mean, sd float64) {
	if !(dropFrac >= 0 && dropFrac < 1) {
		panic("measure: Summarize dropFrac must be in [0, 1)")
	}
	keep := slices.Clone(samples)
	slices.Sort(keep)
	keep = keep[:len(keep)-int(float64(len(keep))*dropFrac)]
	if len(keep) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range keep {
		mean += v
	}
	mean /= float64(len(keep))
	for _, v := range keep {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(keep)))
}
