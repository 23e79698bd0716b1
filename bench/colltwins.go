package bench

import (
	"slices"

	"github.com/plexus-hpc/plexus/tree"
)

// Team cases of one size whose topologies build the same tree (same root,
// same children in the same order) run the same team: a coll.Team is made
// from its trees alone. Such a case is measured once, for the first of
// them in the stage, and the others report that measurement with
// Result.SameTreeAs naming it: timing one team twice and comparing the two
// would only compare the machine's noise (on a one-socket host the flat
// topologies, and best among them, are often one tree), and it would cost
// the benchmark a case's runs for nothing.

// twins returns, for each case of ks, the index of the earlier case of
// the same bench whose tree is the same as its own, or -1. trees[i] is
// ks[i]'s tree, nil for a case that has none (not a team case); such
// cases are never twins.
func twins(ks []*kase, trees []*tree.Tree) []int {
	out := make([]int, len(ks))
	for i := range ks {
		out[i] = -1
		if trees[i] == nil {
			continue
		}
		for j := range i {
			if out[j] < 0 && trees[j] != nil && ks[j].bench == ks[i].bench && ks[j].members == ks[i].members && sameTree(trees[i], trees[j]) {
				out[i] = j
				break
			}
		}
	}
	return out
}

// sameTree reports whether a and b have the same root and give every
// member the same children in the same order.
func sameTree(a, b *tree.Tree) bool {
	if a.Root != b.Root || len(a.Children) != len(b.Children) {
		return false
	}
	for u, kids := range a.Children {
		other, ok := b.Children[u]
		if !ok || !slices.Equal(kids, other) {
			return false
		}
	}
	return true
}

// stageTrees builds the tree of every team case of a stage (nil for the
// others), once the stage's model is known.
func stageTrees(ks []*kase) ([]*tree.Tree, error) {
	trees := make([]*tree.Tree, len(ks))
	for i, k := range ks {
		if k.tree == nil {
			continue
		}
		t, err := k.tree()
		if err != nil {
			return nil, caseErr(k, err)
		}
		trees[i] = t
	}
	return trees, nil
}
