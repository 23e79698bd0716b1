package tree

import (
	"fmt"
	"math"
	"slices"

	"github.com/plexus-hpc/plexus/topo"
)

// RoundRobin returns k CPUs (OS numbers) of m allocated round-robin over
// its NUMA nodes, as Smelt's multicast experiments do (§5.2): the first CPU
// of every node, then the second of every node, and so on, so that with
// four nodes and four CPUs there is one CPU per node. Within a node CPUs are
// taken in ascending id; nodes are visited in model order and skipped once
// exhausted. It fails unless 1 ≤ k ≤ m.N().
func RoundRobin(m *topo.Model, k int) ([]int, error) {
	if k < 1 || k > m.N() {
		return nil, fmt.Errorf("%w: cannot allocate %d CPUs round-robin from a model with %d", ErrGroup, k, m.N())
	}
	perNode := make([][]int, len(m.Nodes))
	for _, c := range m.CPUs {
		perNode[c.Node] = append(perNode[c.Node], c.ID)
	}
	for _, ids := range perNode {
		slices.Sort(ids)
	}
	out := make([]int, 0, k)
	for round := 0; len(out) < k; round++ {
		for _, ids := range perNode {
			if round < len(ids) && len(out) < k {
				out = append(out, ids[round])
			}
		}
	}
	return out, nil
}

// Row is one topology's simulated latencies in a comparison.
type Row struct {
	Topology Topology
	// Latency holds the simulated latency of every op of Ops, in the
	// model's unit (nanoseconds). For Best each op's latency is that of the
	// tree Best built for that op.
	Latency map[Op]float64
	// Root is the root's OS CPU number (of the broadcast tree for Best).
	Root int
}

// Compare builds every topology Topologies returns for the group cpus
// (nil means every CPU of m) rooted at root (an OS CPU number or AutoRoot)
// and simulates every op on it. Best is built once per op, because it
// optimises for one op; the other topologies do not depend on the op, so
// one tree serves all three. Rows are in Topologies order.
func Compare(m *topo.Model, cpus []int, root int) ([]Row, error) {
	all := Topologies()
	rows := make([]Row, 0, len(all))
	for _, t := range all {
		r, err := compareOne(m, cpus, root, t)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func compareOne(m *topo.Model, cpus []int, root int, t Topology) (Row, error) {
	row := Row{Topology: t, Latency: make(map[Op]float64, len(Ops()))}
	var shared *Tree
	for i, op := range Ops() {
		tr := shared
		if tr == nil {
			var err error
			if tr, err = Build(m, Spec{Topology: t, Op: op, CPUs: cpus, Root: root}); err != nil {
				return Row{}, fmt.Errorf("tree: compare: %v: %w", t, err)
			}
			if t != Best {
				shared = tr
			}
		}
		if i == 0 {
			row.Root = tr.Root
		}
		res, err := Simulate(m, tr, op)
		if err != nil {
			return Row{}, fmt.Errorf("tree: compare: %v %v: %w", t, op, err)
		}
		row.Latency[op] = res.Latency
	}
	return row, nil
}

// BestStatic returns the lowest latency of op among the rows whose
// topology is one Static returns: the baseline Smelt's Figure 10 labels its
// speedups against. It returns +Inf when no static row is present.
func BestStatic(rows []Row, op Op) float64 {
	best := math.Inf(1)
	for _, r := range rows {
		if slices.Contains(Static(), r.Topology) {
			best = min(best, r.Latency[op])
		}
	}
	return best
}

// SweepPoint is the comparison for one group size.
type SweepPoint struct {
	Size int
	Rows []Row
}

// Sweep compares every topology on groups of each size in sizes, the
// groups allocated by RoundRobin and rooted at AutoRoot, as in Smelt's
// multicast experiment (§5.2).
//
// progress, when not nil, is called after each size with the work done and
// the total work. A size's work counts as the cube of the group size, which
// tracks the measured time of Compare (dominated by Best) on 100–400 CPU
// models, so that a caller can extrapolate an ETA from the rate so far;
// done reaches total with the last size.
func Sweep(m *topo.Model, sizes []int, progress func(done, total int)) ([]SweepPoint, error) {
	total := 0
	for _, k := range sizes {
		total += sweepWork(k)
	}
	points := make([]SweepPoint, 0, len(sizes))
	done := 0
	for _, k := range sizes {
		cpus, err := RoundRobin(m, k)
		if err != nil {
			return nil, err
		}
		rows, err := Compare(m, cpus, AutoRoot)
		if err != nil {
			return nil, fmt.Errorf("tree: sweep: size %d: %w", k, err)
		}
		points = append(points, SweepPoint{Size: k, Rows: rows})
		if done += sweepWork(k); progress != nil {
			progress(done, total)
		}
	}
	return points, nil
}

func sweepWork(k int) int { return k*k*k + 1 }
