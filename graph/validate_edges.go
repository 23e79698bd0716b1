package graph

import "fmt"

// CheckEdges checks rules 3 and 4 on the input edges in g's lists:
// an edge with both ends reached spans at most one level (3), and no
// edge has exactly one end reached, since the tree must span the root's
// component (4). parent and level cover every vertex.
func CheckEdges(parent []int64, level []int32, g *CSR) error {
	if err := checkArrays(parent, level, g.Lo, g.Lo+g.Len()); err != nil {
		return err
	}
	for u := g.Lo; u < g.Lo+g.Len(); u++ {
		in := parent[u] != Unreached
		for _, w := range g.Adj(u) {
			v := int64(w)
			if v >= int64(len(parent)) {
				return fmt.Errorf("%w: vertex %d has an edge to %d, past the %d vertices of parent", ErrInvalid, u, v, len(parent))
			}
			switch vin := parent[v] != Unreached; {
			case in != vin:
				return violation(RuleSpanning, u, "edge to %d leaves the tree (reached %v and %v)", v, in, vin)
			case in && (level[u]-level[v] > 1 || level[v]-level[u] > 1):
				return violation(RuleEdgeSpan, u, "edge to %d spans levels %d and %d", v, level[u], level[v])
			}
		}
	}
	return nil
}

// CheckTreeEdges checks rule 5 for the vertices in g's lists: the edge
// from each reached vertex other than the root to its parent is in the
// vertex's list of input edges.
func CheckTreeEdges(parent []int64, root int64, g *CSR) error {
	if g.Lo < 0 || g.Lo+g.Len() > int64(len(parent)) {
		return fmt.Errorf("%w: parent has %d entries, for vertices [%d, %d)", ErrInvalid, len(parent), g.Lo, g.Lo+g.Len())
	}
	for v := g.Lo; v < g.Lo+g.Len(); v++ {
		p := parent[v]
		if p == Unreached || v == root {
			continue
		}
		if !contains(g.Adj(v), uint32(p)) {
			return violation(RuleTreeEdges, v, "tree edge to its parent %d is no input edge", p)
		}
	}
	return nil
}

func contains(s []uint32, x uint32) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// Traversed counts, in g's lists, the self-loops and the other list
// entries of the vertices the search reached. Summed over the ranks,
// self-loops + others/2 is the search's edge count for TEPS, as the
// Graph500 reference (v2 and v3) counts it: the input edges in the
// root's component, a self-loop once.
func Traversed(parent []int64, g *CSR) (loops, others int64) {
	for u := g.Lo; u < g.Lo+g.Len(); u++ {
		if parent[u] == Unreached {
			continue
		}
		for _, w := range g.Adj(u) {
			if int64(w) == u {
				loops++
			} else {
				others++
			}
		}
	}
	return loops, others
}

// Validate runs the five rules on the vertices of g, given the whole
// parent and level arrays: the checks one rank makes for its own
// vertices. The first failure is returned as a *Violation.
func Validate(parent []int64, level []int32, root int64, g *CSR) error {
	if _, err := CheckTree(parent, root); err != nil {
		return err
	}
	if err := CheckLevels(parent, level, root, g.Lo, g.Lo+g.Len()); err != nil {
		return err
	}
	if err := CheckEdges(parent, level, g); err != nil {
		return err
	}
	return CheckTreeEdges(parent, root, g)
}
