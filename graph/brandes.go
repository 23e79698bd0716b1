package graph

// SerialBrandes is Brandes' betweenness centrality over a whole graph's
// CSR (Lo = 0), accumulated from the given sources: the sequential
// reference the distributed BC is tested against. Paths are counted
// with the lists' multiplicity (a doubled edge counts twice); for an
// undirected graph each pair's paths are counted from both ends when
// both are sources, as Brandes' algorithm does.
func SerialBrandes(g *CSR, sources []int64) []float64 {
	n := g.Len()
	bc := make([]float64, n)
	level := make([]int32, n)
	sigma := make([]float64, n)
	delta := make([]float64, n)
	for _, s := range sources {
		for i := range level {
			level[i], sigma[i], delta[i] = -1, 0, 0
		}
		level[s], sigma[s] = 0, 1
		order := []int64{s}
		for head := 0; head < len(order); head++ {
			u := order[head]
			for _, w := range g.Adj(u) {
				v := int64(w)
				if level[v] < 0 {
					level[v] = level[u] + 1
					order = append(order, v)
				}
				if level[v] == level[u]+1 {
					sigma[v] += sigma[u]
				}
			}
		}
		for i := len(order) - 1; i > 0; i-- {
			w := order[i]
			for _, x := range g.Adj(w) {
				if v := int64(x); level[v] == level[w]-1 {
					delta[v] += sigma[v] / sigma[w] * (1 + delta[w])
				}
			}
			bc[w] += delta[w]
		}
	}
	return bc
}
