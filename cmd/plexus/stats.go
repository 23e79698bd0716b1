package main

import (
	"fmt"
	"io"
	"math"

	"github.com/plexus-hpc/plexus/topo"
)

// pairClass is how far apart two CPUs are; the cost summary groups pairs
// by it because it is what the costs mostly depend on (Smelt §3.2).
type pairClass int

const (
	sameCore pairClass = iota // SMT siblings
	sameNode
	remote
	numClasses
)

var classNames = [numClasses]string{"same core", "same node", "remote"}

func classify(m *topo.Model, i, j int) pairClass {
	switch {
	case m.CPUs[i].Core == m.CPUs[j].Core:
		return sameCore
	case m.SameNode(i, j):
		return sameNode
	}
	return remote
}

// stat accumulates min, mean and max.
type stat struct {
	n             int
	min, max, sum float64
}

func (s *stat) add(v float64) {
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
	s.sum += v
}

func (s stat) mean() float64 {
	if s.n == 0 {
		return math.NaN()
	}
	return s.sum / float64(s.n)
}

// classStats summarises a cost matrix per class of ordered pairs.
func classStats(m *topo.Model, a [][]float64) [numClasses]stat {
	var st [numClasses]stat
	for i, row := range a {
		for j, v := range row {
			if i != j {
				st[classify(m, i, j)].add(v)
			}
		}
	}
	return st
}

func writeCostSummary(w io.Writer, m *topo.Model) {
	fmt.Fprintln(w, "\ncosts (ns)            pairs      min     mean      max")
	for _, c := range []struct {
		name string
		a    [][]float64
	}{{"send", m.Send.Mean}, {"receive", m.Recv.Mean}} {
		st := classStats(m, c.a)
		for k, s := range st {
			label := fmt.Sprintf("%-7s %s", c.name, classNames[k])
			if s.n == 0 {
				fmt.Fprintf(w, "  %-19s %5d %8s %8s %8s\n", label, 0, "-", "-", "-")
				continue
			}
			fmt.Fprintf(w, "  %-19s %5d %8.1f %8.1f %8.1f\n", label, s.n, s.min, s.mean(), s.max)
		}
	}
}
