package survey

import (
	"fmt"
	"math"

	"github.com/plexus-hpc/plexus/tree"
)

// Point is Best's latency against its competitors for one machine, op and
// group size.
type Point struct {
	Machine string
	Op      tree.Op
	Size    int
	// Best, BestStatic and Adaptive are simulated latencies (ns):
	// BestStatic is the lowest of the static topologies, Adaptive the
	// lower of Smelt's adaptive tree with and without its optimisations.
	Best, BestStatic, Adaptive float64
	// Closest is the topology (static or adaptive) closest to Best, for
	// the record: Best must never be slower than it.
	Closest tree.Topology
}

// Survey compares the trees on m for every size in sizes; progress as in
// tree.Sweep.
func Survey(m Machine, sizes []int, progress func(done, total int)) ([]Point, error) {
	points, err := tree.Sweep(m.Model, sizes, progress)
	if err != nil {
		return nil, fmt.Errorf("survey: %s: %w", m.Name, err)
	}
	var out []Point
	for _, sp := range points {
		for _, op := range tree.Ops() {
			out = append(out, point(m.Name, op, sp))
		}
	}
	return out, nil
}

func point(name string, op tree.Op, sp tree.SweepPoint) Point {
	p := Point{Machine: name, Op: op, Size: sp.Size, BestStatic: tree.BestStatic(sp.Rows, op),
		Adaptive: math.Inf(1), Best: math.Inf(1)}
	closest := math.Inf(1)
	for _, r := range sp.Rows {
		l := r.Latency[op]
		switch r.Topology {
		case tree.Best:
			p.Best = l
			continue
		case tree.Adaptive, tree.AdaptiveBase:
			p.Adaptive = min(p.Adaptive, l)
		}
		if l < closest {
			closest, p.Closest = l, r.Topology
		}
	}
	return p
}

// Violation reports whether Best is slower than some other topology
// (beyond floating-point noise).
func (p Point) Violation() bool {
	return p.Best > min(p.BestStatic, p.Adaptive)*(1+1e-9)
}

// Summary aggregates Best/BestStatic and Best/Adaptive ratios.
type Summary struct {
	Points                          int
	Violations                      int
	MeanVsStatic, WorstVsStatic     float64 // ratios Best/BestStatic (lower is better)
	MeanVsAdaptive, WorstVsAdaptive float64 // ratios Best/Adaptive
}

// Summarize aggregates points; "worst" is the largest ratio (the case
// where Best gains least).
func Summarize(points []Point) Summary {
	s := Summary{Points: len(points)}
	if len(points) == 0 {
		return s
	}
	for _, p := range points {
		rs, ra := p.Best/p.BestStatic, p.Best/p.Adaptive
		s.MeanVsStatic += rs
		s.MeanVsAdaptive += ra
		s.WorstVsStatic = max(s.WorstVsStatic, rs)
		s.WorstVsAdaptive = max(s.WorstVsAdaptive, ra)
		if p.Violation() {
			s.Violations++
		}
	}
	s.MeanVsStatic /= float64(len(points))
	s.MeanVsAdaptive /= float64(len(points))
	return s
}
