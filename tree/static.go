package tree

// Static topologies, as Smelt defines them (§2.4). Each takes the group and
// the root's local index; members other than the root are used in group
// order.

// others returns the members except root, in group order, after root.
func others(n, root int) []int {
	order := make([]int, 0, n)
	order = append(order, root)
	for a := 0; a < n; a++ {
		if a != root {
			order = append(order, a)
		}
	}
	return order
}

// binary connects the k-th member of the order to members 2k+1 and 2k+2.
func binary(g *group, root int) *shape {
	order := others(g.n(), root)
	s := newShape(g.n(), root)
	for k := 1; k < len(order); k++ {
		s.add(order[(k-1)/2], order[k])
	}
	return s
}

// sequential is a star: the root sends to every member in turn.
func sequential(g *group, root int) *shape {
	s := newShape(g.n(), root)
	for _, a := range others(g.n(), root)[1:] {
		s.add(root, a)
	}
	return s
}

// fibonacci numbers a Fibonacci tree breadth first and keeps its first n
// nodes. A Fibonacci tree of order k is a root whose first (left) subtree
// has order k-1 and second has order k-2; orders below 1 are empty. For n
// equal to a Fibonacci tree's size (1, 2, 4, 7, 12, 20, 33, ...) it is that
// tree exactly; otherwise a breadth-first prefix of the next larger one.
func fibonacci(g *group, root int) *shape {
	order := others(g.n(), root)
	n := len(order)
	k := 1
	for fibSize(k) < n {
		k++
	}
	s := newShape(g.n(), root)
	orders := []int{k} // BFS queue of subtree orders, by BFS index
	for i := 0; len(orders) < n; i++ {
		for _, sub := range []int{orders[i] - 1, orders[i] - 2} {
			if sub >= 1 && len(orders) < n {
				s.add(order[i], order[len(orders)])
				orders = append(orders, sub)
			}
		}
	}
	return s
}

func fibSize(k int) int {
	a, b := 0, 1 // sizes of orders k-2 and k-1 as k advances
	for i := 1; i < k; i++ {
		a, b = b, a+b+1
	}
	if k < 1 {
		return 0
	}
	return b
}

// mst is Prim's minimum spanning tree from the root on edge weight
// Send+Recv, with out-degree capped at two as Smelt's simulator does. With
// invert it maximises the weight instead: Smelt's "bad" tree.
func mst(g *group, root int, invert bool) *shape {
	n := g.n()
	s := newShape(n, root)
	in := []int{root}
	inTree := make([]bool, n)
	inTree[root] = true
	for len(in) < n {
		bu, bv, best := -1, -1, 0.0
		for _, u := range in {
			if len(s.kids[u]) >= 2 {
				continue
			}
			for v := 0; v < n; v++ {
				if inTree[v] {
					continue
				}
				w := g.s[u][v] + g.r[u][v]
				if invert {
					w = -w
				}
				if bu < 0 || w < best {
					bu, bv, best = u, v, w
				}
			}
		}
		s.add(bu, bv)
		inTree[bv] = true
		in = append(in, bv)
	}
	return s
}

// cluster builds a binary tree between NUMA nodes (entered at the root for
// the root's node, else at the node's first member) and sends sequentially
// inside each node; a representative sends to remote nodes first.
func cluster(g *group, root int) *shape {
	nodes := g.nodesInOrder(root)
	rep := map[int]int{g.node[root]: root}
	for a := 0; a < g.n(); a++ {
		if _, ok := rep[g.node[a]]; !ok {
			rep[g.node[a]] = a
		}
	}
	s := newShape(g.n(), root)
	for k := 1; k < len(nodes); k++ {
		s.add(rep[nodes[(k-1)/2]], rep[nodes[k]])
	}
	for _, a := range others(g.n(), root)[1:] {
		if r := rep[g.node[a]]; r != a {
			s.add(r, a)
		}
	}
	return s
}
