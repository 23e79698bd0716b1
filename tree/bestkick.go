package tree

import (
	"math/rand/v2"
	"slices"
)

// Iterated local search for small groups: local optima of the move search
// differ from the global one by a few percent on some machines, and on
// small groups it is cheap to kick the best tree found (a few random
// re-parentings) and search again. The kicks come from a fixed seed, so
// the result is still deterministic.

// kickMax is the largest group best kicks; kicks is how many it tries.
const (
	kickMax = 16
	kicks   = 48
)

// kickSearch improves s for op by kicks rounds of perturb-and-search,
// keeping the fastest tree seen. It returns s itself when nothing helps.
func kickSearch(g *group, s *shape, op Op) *shape {
	x := newSim(g)
	bs, bl := s, x.latency(s, op)
	rng := rand.New(rand.NewPCG(uint64(g.n()), uint64(op)))
	for range kicks {
		k := perturb(g, bs, rng)
		reorder(g, k)
		l := newSearch(g, k, op)
		l.run()
		if c := l.shape(); x.latency(c, op) < bl {
			bs, bl = c, x.latency(c, op)
		}
	}
	return bs
}

// perturb returns a copy of s with 2 or 3 random nodes moved, each with its
// subtree, under a random node outside that subtree.
func perturb(g *group, s *shape, rng *rand.Rand) *shape {
	c := s.clone()
	for range 2 + rng.IntN(2) {
		v := rng.IntN(g.n())
		if v == c.root {
			continue
		}
		inSub := subtree(c, v)
		u := rng.IntN(g.n())
		if inSub[u] {
			continue
		}
		p := c.parents()[v]
		c.kids[p] = slices.DeleteFunc(c.kids[p], func(w int) bool { return w == v })
		c.kids[u] = append(c.kids[u], v)
	}
	return c
}

// subtree marks v and its descendants.
func subtree(s *shape, v int) []bool {
	in := make([]bool, len(s.kids))
	stack := []int{v}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		in[u] = true
		stack = append(stack, s.kids[u]...)
	}
	return in
}
