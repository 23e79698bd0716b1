package graph

// SerialBFS is the plain sequential search over a whole graph's CSR
// (Lo = 0): the reference the distributed search is tested against. It
// returns each vertex's parent (the root its own, Unreached where not
// reached) and level (-1 where not reached).
func SerialBFS(g *CSR, root int64) (parent []int64, level []int32) {
	n := g.Len()
	parent = make([]int64, n)
	level = make([]int32, n)
	for i := range parent {
		parent[i], level[i] = Unreached, -1
	}
	parent[root], level[root] = root, 0
	frontier := []int64{root}
	for len(frontier) > 0 {
		var next []int64
		for _, u := range frontier {
			for _, w := range g.Adj(u) {
				if v := int64(w); parent[v] == Unreached {
					parent[v], level[v] = u, level[u]+1
					next = append(next, v)
				}
			}
		}
		frontier = next
	}
	return parent, level
}
