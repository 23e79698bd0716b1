package tree

import (
	"errors"
	"fmt"
	"sort"
)

// Errors returned by the package.
var (
	ErrInvalid = errors.New("tree: invalid tree")
	ErrGroup   = errors.New("tree: invalid group")
	// ErrOp is wrapped by the error for an Op that is none of the
	// operations.
	ErrOp = errors.New("tree: unknown operation")
	// ErrArgument is wrapped by the error for a size or cost out of range.
	ErrArgument = errors.New("tree: invalid argument")
)

// Tree is a broadcast/reduction tree over a group of CPUs: a root and, for
// every member, its children in send order. Members are OS CPU numbers.
//
// Its JSON form is {"topology": t, "model": m, "root": r,
// "children": {"r": [a, b, ...], "a": [], ...}}; every member is a key of
// Children, leaves with an empty list.
type Tree struct {
	Topology string        `json:"topology"`
	Model    string        `json:"model"`
	Root     int           `json:"root"`
	Children map[int][]int `json:"children"`
}

// Members returns the CPUs of the tree in ascending order.
func (t *Tree) Members() []int {
	ids := make([]int, 0, len(t.Children))
	for id := range t.Children {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}

// Parent returns the parent of every member; the root maps to -1.
func (t *Tree) Parent() map[int]int {
	p := map[int]int{t.Root: -1}
	for u, kids := range t.Children {
		for _, c := range kids {
			p[c] = u
		}
	}
	return p
}

// Depth returns the number of edges on the longest root-to-leaf path. On
// a malformed Tree (one Validate refuses) it counts each member once, so
// a cycle ends the path instead of recursing for ever.
func (t *Tree) Depth() int {
	seen := map[int]bool{}
	var walk func(u int) int
	walk = func(u int) int {
		seen[u] = true
		d := 0
		for _, c := range t.Children[u] {
			if !seen[c] {
				d = max(d, 1+walk(c))
			}
		}
		return d
	}
	return walk(t.Root)
}

// Validate checks that t is a spanning tree of its members rooted at Root:
// every member reached exactly once, no child outside the member set.
func (t *Tree) Validate() error {
	if _, ok := t.Children[t.Root]; !ok {
		return fmt.Errorf("%w: root %d is not a member", ErrInvalid, t.Root)
	}
	seen := map[int]bool{t.Root: true}
	stack := []int{t.Root}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range t.Children[u] {
			if _, ok := t.Children[c]; !ok {
				return fmt.Errorf("%w: child %d of %d is not a member", ErrInvalid, c, u)
			}
			if seen[c] {
				return fmt.Errorf("%w: cpu %d is reached twice", ErrInvalid, c)
			}
			seen[c] = true
			stack = append(stack, c)
		}
	}
	if len(seen) != len(t.Children) {
		return fmt.Errorf("%w: %d of %d members are not reachable from root %d",
			ErrInvalid, len(t.Children)-len(seen), len(t.Children), t.Root)
	}
	return nil
}
