package tree

import (
	"slices"

	"github.com/plexus-hpc/plexus/topo"
)

// best is the optimiser behind topology Best. It starts from the trees
// for op of Smelt's static topologies and the adaptive trees at root (send
// order by Jackson's rule) and runs a deterministic local search (see
// search), whose steps never raise the latency, from the fastest of them;
// on groups of up to multiStartMax members from each of them, since local
// optima differ and small groups are cheap. It returns the fastest result,
// so it is never worse than any starting tree for op, and the same inputs
// give the same tree. Groups of up to kickMax members also get an iterated
// local search (kickSearch). progress, when not nil, is told the passes
// done out of the most the searches may take.
func best(g *group, root int, op Op, progress func(done, total int)) *shape {
	starts := startShapes(g, root, op)
	if g.n() <= 2 {
		return starts[0]
	}
	if g.n() > multiStartMax {
		starts = starts[:1]
	}
	x := newSim(g)
	bs, bl := starts[0], x.latency(starts[0], op)
	work := maxPasses * g.n() // a search's progress units: nodes scanned
	for k, st := range starts {
		l := newSearch(g, st, op)
		if progress != nil {
			l.progress = func(done int) { progress(k*work+done, len(starts)*work) }
		}
		l.run()
		// The check guards against float noise in the incremental sums.
		if s := l.shape(); x.latency(s, op) < bl {
			bs, bl = s, x.latency(s, op)
		}
	}
	if g.n() <= kickMax {
		bs = kickSearch(g, bs, op)
	}
	if progress != nil {
		progress(len(starts)*work, len(starts)*work)
	}
	return bs
}

// multiStartMax is the largest group on which best searches from every
// starting tree rather than only the fastest.
const multiStartMax = 64

// startTopologies are the generators best starts from: all but Best.
var startTopologies = append(Static(), Adaptive, AdaptiveBase)

// startShapes returns the starting trees for op, fastest first (stable, so
// ties keep startTopologies order).
func startShapes(g *group, root int, op Op) []*shape {
	x := newSim(g)
	shapes := make([]*shape, 0, len(startTopologies))
	lats := map[*shape]float64{}
	for _, t := range startTopologies {
		s := build(g, t, op, root)
		reorder(g, s) // never slower for bcast, irrelevant for reduce
		shapes, lats[s] = append(shapes, s), x.latency(s, op)
	}
	slices.SortStableFunc(shapes, func(a, b *shape) int { return cmpFloat(lats[a], lats[b]) })
	return shapes
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
	both := best(g, root, Barrier, nil)
	r := fasterOf(g, Reduce, best(g, root, Reduce, nil), both)
	b := fasterOf(g, Bcast, best(g, root, Bcast, nil), both)
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
