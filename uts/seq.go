package uts

// Counts is what a search of a tree finds.
type Counts struct {
	Nodes, Leaves int64
	Depth         int // the greatest height, the root's being 0
}

// Add folds o into c.
func (c *Counts) Add(o Counts) {
	c.Nodes += o.Nodes
	c.Leaves += o.Leaves
	c.Depth = max(c.Depth, o.Depth)
}

// Search is the plain sequential UTS: a depth-first walk of p's tree
// that generates each node's children as it goes. It is the reference
// the distributed UTS-Mem is tested against.
func Search(p Params) Counts {
	var c Counts
	stack := []Node{Root(p)}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		c.visit(n, p.NumChildren(n))
		for i := range p.NumChildren(n) {
			stack = append(stack, n.Child(i))
		}
	}
	return c
}

func (c *Counts) visit(n Node, children int) {
	c.Nodes++
	if children == 0 {
		c.Leaves++
	}
	c.Depth = max(c.Depth, int(n.Height))
}
