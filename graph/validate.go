package graph

import (
	"errors"
	"fmt"
)

// ErrInvalid is wrapped by every failed validation of a BFS tree.
var ErrInvalid = errors.New("graph: invalid BFS tree")

// Rule is one of the Graph500 specification's five checks of a BFS
// result.
type Rule int

// The rules, in the specification's order.
const (
	RuleTree      Rule = 1 + iota // the parents form a tree rooted at the root, without cycles
	RuleLevels                    // tree edges join vertices whose levels differ by one
	RuleEdgeSpan                  // every input edge spans at most one level, or lies outside the tree
	RuleSpanning                  // the tree spans the root's whole component
	RuleTreeEdges                 // every tree edge is an input edge
)

var ruleNames = map[Rule]string{
	RuleTree:      "tree",
	RuleLevels:    "levels",
	RuleEdgeSpan:  "edge-span",
	RuleSpanning:  "spanning",
	RuleTreeEdges: "tree-edges",
}

// String returns the rule's short name, as error messages print it.
func (r Rule) String() string {
	if n, ok := ruleNames[r]; ok {
		return n
	}
	return fmt.Sprintf("rule(%d)", int(r))
}

// Violation is a failed rule at a vertex; it wraps ErrInvalid.
type Violation struct {
	Rule   Rule
	Vertex int64
	Detail string
}

func (v *Violation) Error() string {
	return fmt.Sprintf("%v: rule %d (%v) fails at vertex %d: %s", ErrInvalid, int(v.Rule), v.Rule, v.Vertex, v.Detail)
}

func (v *Violation) Unwrap() error { return ErrInvalid }

func violation(r Rule, v int64, format string, args ...any) error {
	return &Violation{Rule: r, Vertex: v, Detail: fmt.Sprintf(format, args...)}
}

// Unreached is the parent of a vertex the search did not reach.
const Unreached = -1

// CheckTree checks rule 1 on a whole parent array: parent[root] = root,
// every other parent is Unreached or a vertex, and following parents
// from any reached vertex comes to the root. It returns each vertex's
// depth in the tree (-1 where unreached).
func CheckTree(parent []int64, root int64) ([]int32, error) {
	n := int64(len(parent))
	if root < 0 || root >= n || parent[root] != root {
		return nil, violation(RuleTree, root, "the root's parent is not the root")
	}
	depth := make([]int32, n)
	for i := range depth {
		depth[i] = -2 // not yet known
	}
	depth[root] = 0
	var path []int64
	for v := range n {
		if err := walkUp(parent, depth, v, &path); err != nil {
			return nil, err
		}
	}
	return depth, nil
}

// walkUp sets depth along v's path to a vertex of known depth; a path
// longer than the vertex count has a cycle.
func walkUp(parent []int64, depth []int32, v int64, path *[]int64) error {
	n := int64(len(parent))
	*path = (*path)[:0]
	for w := v; depth[w] == -2; w = parent[w] {
		p := parent[w]
		switch {
		case p == Unreached:
			depth[w] = -1
			if len(*path) > 0 {
				return violation(RuleTree, (*path)[len(*path)-1], "its parent %d is unreached", w)
			}
			return nil
		case p < 0 || p >= n:
			return violation(RuleTree, w, "parent %d is not a vertex", p)
		case int64(len(*path)) >= n:
			return violation(RuleTree, w, "its parents form a cycle")
		}
		*path = append(*path, w)
	}
	for i := len(*path) - 1; i >= 0; i-- {
		w := (*path)[i]
		if depth[parent[w]] < 0 {
			return violation(RuleTree, w, "its parent %d is unreached", parent[w])
		}
		depth[w] = depth[parent[w]] + 1
	}
	return nil
}

// CheckLevels checks rule 2 for the vertices [lo, hi): the level the
// search reported for each reached vertex is one more than its
// parent's, and the root's is 0. parent and level cover every vertex.
func CheckLevels(parent []int64, level []int32, root, lo, hi int64) error {
	if err := checkArrays(parent, level, lo, hi); err != nil {
		return err
	}
	if root < 0 || root >= int64(len(parent)) {
		return violation(RuleTree, root, "the root is not a vertex of the %d", len(parent))
	}
	if level[root] != 0 {
		return violation(RuleLevels, root, "the root is at level %d", level[root])
	}
	for v := lo; v < hi; v++ {
		p := parent[v]
		if p == Unreached || v == root {
			continue
		}
		if p < 0 || p >= int64(len(parent)) {
			return violation(RuleTree, v, "parent %d is not a vertex", p)
		}
		if level[v] != level[p]+1 {
			return violation(RuleLevels, v, "level %d, its parent %d at level %d", level[v], p, level[p])
		}
	}
	return nil
}

// checkArrays checks that parent and level, the search's output, cover
// the same vertices and the range [lo, hi) to check: the output may come
// from anywhere, and a short array must be an error, not an index out of
// range.
func checkArrays(parent []int64, level []int32, lo, hi int64) error {
	n := int64(len(parent))
	if int64(len(level)) != n || lo < 0 || lo > hi || hi > n {
		return fmt.Errorf("%w: parent has %d entries and level %d, for vertices [%d, %d)", ErrInvalid, n, len(level), lo, hi)
	}
	return nil
}
