package tree

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes the tree as an indented outline, children in send
// order, one member per line. A Tree that Validate refuses is not
// written; its error is returned.
func (t *Tree) WriteText(w io.Writer) error {
	if err := t.Validate(); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s tree, root %d, %d members, depth %d\n", t.Topology, t.Root, len(t.Children), t.Depth())
	var walk func(u, depth int)
	walk = func(u, depth int) {
		fmt.Fprintf(&b, "%s%d\n", strings.Repeat("  ", depth), u)
		for _, c := range t.Children[u] {
			walk(c, depth+1)
		}
	}
	walk(t.Root, 0)
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the tree's JSON form.
func (t *Tree) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(t)
}

// ReadJSON reads a tree written by WriteJSON and validates it.
func ReadJSON(r io.Reader) (*Tree, error) {
	var t Tree
	if err := json.NewDecoder(r).Decode(&t); err != nil {
		return nil, fmt.Errorf("tree: decoding tree: %w", err)
	}
	if t.Children == nil {
		return nil, fmt.Errorf("%w: no children map", ErrInvalid)
	}
	return &t, t.Validate()
}

// WriteDot writes the tree in Graphviz dot syntax; edge labels give the
// send order at the parent.
func (t *Tree) WriteDot(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %q {\n  label=%q;\n  node [shape=circle];\n", t.Topology, t.Topology+" tree on "+t.Model)
	fmt.Fprintf(&b, "  %d [style=bold];\n", t.Root)
	for _, u := range t.Members() {
		for i, c := range t.Children[u] {
			fmt.Fprintf(&b, "  %d -> %d [label=%d];\n", u, c, i+1)
		}
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
