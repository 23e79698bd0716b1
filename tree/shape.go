package tree

// shape is a tree over a group's local indices: the representation the
// generators, the simulator and the optimisers work on.
type shape struct {
	root int
	kids [][]int // kids[u]: children of u in send order
}

func newShape(n, root int) *shape {
	return &shape{root: root, kids: make([][]int, n)}
}

func (s *shape) add(parent, child int) { s.kids[parent] = append(s.kids[parent], child) }

func (s *shape) clone() *shape {
	c := &shape{root: s.root, kids: make([][]int, len(s.kids))}
	for u, k := range s.kids {
		if len(k) > 0 {
			c.kids[u] = append([]int(nil), k...)
		}
	}
	return c
}

// parents returns the parent of every local index (-1 for the root).
func (s *shape) parents() []int {
	p := make([]int, len(s.kids))
	p[s.root] = -1
	for u, k := range s.kids {
		for _, c := range k {
			p[c] = u
		}
	}
	return p
}

// toTree converts a shape to the public form, naming members by CPU id.
func (s *shape) toTree(g *group, topology, model string) *Tree {
	t := &Tree{Topology: topology, Model: model, Root: g.ids[s.root], Children: make(map[int][]int, len(s.kids))}
	for u, k := range s.kids {
		ids := make([]int, len(k))
		for i, c := range k {
			ids[i] = g.ids[c]
		}
		t.Children[g.ids[u]] = ids
	}
	return t
}

// fromTree converts a validated tree over exactly g's members to a shape.
func fromTree(g *group, t *Tree) (*shape, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if len(t.Children) != g.n() {
		return nil, errGroupMismatch(len(t.Children), g.n())
	}
	root, _ := g.local(t.Root)
	s := newShape(g.n(), root)
	for id, kids := range t.Children {
		u, ok := g.local(id)
		if !ok {
			return nil, errGroupMismatch(len(t.Children), g.n())
		}
		for _, c := range kids {
			v, _ := g.local(c)
			s.add(u, v)
		}
	}
	return s, nil
}
