package tree

import "slices"

// Smelt's incremental optimisations of the adaptive tree (§3.3.2).

// optimiseAdaptive reorders sends by most expensive subtree, then shuffles
// in extra links while they lower the simulated broadcast latency.
func optimiseAdaptive(g *group, s *shape) *shape {
	reorder(g, s)
	return shuffle(g, s)
}

// reorder sorts every node's children so the child with the most expensive
// remaining path (receive plus its subtree's broadcast time) is sent to
// first (the flight counts as part of the receive). For fixed subtrees this order minimises the node's completion time
// (Jackson's rule for one machine with delivery times), so applied bottom
// up it gives the best send order for the tree's shape.
func reorder(g *group, s *shape) {
	tail := make([]float64, g.n())
	order := preorder(s, nil)
	for i := len(order) - 1; i >= 0; i-- {
		u := order[i]
		kids := s.kids[u]
		slices.SortStableFunc(kids, func(a, b int) int {
			qa, qb := g.fr[u][a]+tail[a], g.fr[u][b]+tail[b]
			switch {
			case qa > qb:
				return -1
			case qa < qb:
				return 1
			}
			return 0
		})
		t := 0.0
		for _, c := range kids {
			t += g.s[u][c]
			tail[u] = max(tail[u], t+g.fr[u][c]+tail[c])
		}
	}
}

// shuffle repeatedly moves the node that is activated last (always a
// leaf) to a node that becomes idle early, as an extra send there, when that
// lowers the simulated broadcast latency after reordering. Smelt tries only
// the node that is idle first; trying the shuffleCandidates earliest idle
// nodes finds moves where the first one does not help. It stops when no
// candidate helps.
func shuffle(g *group, s *shape) *shape {
	x := newSim(g)
	lat, last := x.bcast(s)
	for range g.n() * g.n() {
		c, l, nl := bestMove(g, s, x, last, lat)
		if c == nil {
			break
		}
		s, lat, last = c, l, nl
	}
	return s
}

// shuffleCandidates bounds the senders tried per shuffle step, so the
// adaptive tree stays fast on machines with hundreds of CPUs.
const shuffleCandidates = 16

// bestMove returns the first improving move of leaf last to an early-idle
// node, with its latency and new last node, or nil.
func bestMove(g *group, s *shape, x *sim, last int, lat float64) (*shape, float64, int) {
	p := s.parents()[last]
	for _, first := range earliestIdle(g, s, x.at, last, shuffleCandidates) {
		if first == p {
			continue
		}
		c := s.clone()
		c.kids[p] = slices.DeleteFunc(c.kids[p], func(v int) bool { return v == last })
		c.kids[first] = append(c.kids[first], last)
		reorder(g, c)
		if l, nl := x.bcast(c); l < lat {
			return c, l, nl
		}
		x.bcast(s) // restore x.at for the next candidate's idle times
	}
	return nil, 0, 0
}

// earliestIdle returns up to k nodes (other than skip) in the order they
// finish their sends in a broadcast with activation times at.
func earliestIdle(g *group, s *shape, at []float64, skip, k int) []int {
	idle := make([]float64, g.n())
	nodes := make([]int, 0, g.n())
	for u := range s.kids {
		t := at[u]
		for _, c := range s.kids[u] {
			t += g.s[u][c]
		}
		if idle[u] = t; u != skip {
			nodes = append(nodes, u)
		}
	}
	slices.SortStableFunc(nodes, func(a, b int) int { return cmpFloat(idle[a], idle[b]) })
	return nodes[:min(k, len(nodes))]
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
