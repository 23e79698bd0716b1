package tree

import "github.com/plexus-hpc/plexus/topo"

// best is the optimiser behind topology Best. It starts from the best tree
// for op among Smelt's static topologies and the adaptive trees at root
// (send order by Jackson's rule), then runs a deterministic local search
// (see search) whose steps never raise the latency. So it is never worse
// than any of them for op, and the same inputs give the same tree.
func best(g *group, root int, op Op) *shape {
	start, startLat := startShape(g, root, op)
	if g.n() <= 2 {
		return start
	}
	l := newSearch(g, start, op)
	l.run()
	s := l.shape()
	if lat := newSim(g).latency(s, op); lat > startLat {
		return start // float noise in the incremental sums; never worse
	}
	return s
}

// startTopologies are the generators best starts from: all but Best.
var startTopologies = append(append([]Topology{}, Static...), Adaptive, AdaptiveBase)

// startShape returns the fastest starting tree for op, with its latency.
func startShape(g *group, root int, op Op) (*shape, float64) {
	x := newSim(g)
	var bs *shape
	bl := 0.0
	for _, t := range startTopologies {
		s := build(g, t, op, root)
		reorder(g, s) // never slower for bcast, irrelevant for reduce
		if l := x.latency(s, op); bs == nil || l < bl {
			bs, bl = s, l
		}
	}
	return bs, bl
}

// BestPair returns separate Best trees for reduction and broadcast with
// the same root. A team that runs its barrier as the reduction on one and
// the broadcast on the other takes the sum of their latencies, which is no
// more than the best single-tree barrier: each half is also checked
// against the Best barrier tree and keeps whichever is faster.
func BestPair(m *topo.Model, spec Spec) (reduce, bcast *Tree, err error) {
	spec.Topology = Best
	if err := spec.Validate(); err != nil {
		return nil, nil, err
	}
	g, err := newGroup(m, spec.CPUs)
	if err != nil {
		return nil, nil, err
	}
	root, err := g.rootFor(spec.Root)
	if err != nil {
		return nil, nil, err
	}
	both := best(g, root, Barrier)
	r := fasterOf(g, Reduce, best(g, root, Reduce), both)
	b := fasterOf(g, Bcast, best(g, root, Bcast), both)
	name := Best.String()
	return r.toTree(g, name, m.Name), b.toTree(g, name, m.Name), nil
}

// fasterOf returns a if it is no slower than b for op, else b.
func fasterOf(g *group, op Op, a, b *shape) *shape {
	x := newSim(g)
	if x.latency(a, op) <= x.latency(b, op) {
		return a
	}
	return b
}
