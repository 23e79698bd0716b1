package tree

import (
	"fmt"

	"github.com/plexus-hpc/plexus/topo"
)

// group is a multicast group viewed through a model: members numbered
// 0..n-1 locally, with their costs copied into dense local matrices so the
// simulator's inner loops index small slices.
//
// Every message's flight takes l[a][b] (the model's latency under load,
// zero without one) between the end of a's send and the start of b's
// receive. The simulators read it through two sums made once: fr, the
// time from the end of a send to the receiver being done (flight then
// receive: a broadcast child's activation), and sf, the time from the
// start of a send to the message's arrival (send then flight: a reduction
// message at its parent). Without latency they are r and s themselves, so
// every result is what it was before the model had latency.
type group struct {
	ids    []int       // local index -> OS CPU number
	node   []int       // local index -> NUMA node index
	core   []int       // local index -> physical core
	s, r   [][]float64 // s[a][b]: a busy sending to b; r[a][b]: b busy receiving from a
	l      [][]float64 // l[a][b]: flight from a to b; nil when the model has no latency
	fr, sf [][]float64 // l+r and s+l (see above)
}

// newGroup builds the local view of cpus (all model CPUs when nil). The
// model must have costs.
func newGroup(m *topo.Model, cpus []int) (*group, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no model (nil)", ErrGroup)
	}
	if !m.HasCosts() {
		return nil, fmt.Errorf("%w: model %q has no send/receive costs (estimate or measure them first)", ErrGroup, m.Name)
	}
	if cpus == nil {
		cpus = m.IDs()
	}
	if len(cpus) == 0 {
		return nil, fmt.Errorf("%w: empty group", ErrGroup)
	}
	idx, err := indices(m, cpus)
	if err != nil {
		return nil, err
	}
	g := &group{ids: append([]int(nil), cpus...)}
	g.node = make([]int, len(idx))
	g.core = make([]int, len(idx))
	g.s, g.r = localMatrix(m.Send.Mean, idx), localMatrix(m.Recv.Mean, idx)
	if m.Latency != nil {
		g.l = localMatrix(m.Latency.Mean, idx)
	}
	g.flights()
	for a, i := range idx {
		g.node[a], g.core[a] = m.CPUs[i].Node, m.CPUs[i].Core
	}
	return g, nil
}

// flights derives fr and sf from s, r and l; it must be called whenever
// any of them changes.
func (g *group) flights() {
	if g.l == nil {
		g.fr, g.sf = g.r, g.s
		return
	}
	g.fr, g.sf = sumMatrix(g.l, g.r), sumMatrix(g.s, g.l)
}

// flight returns l[a][b], zero without latency.
func (g *group) flight(a, b int) float64 {
	if g.l == nil {
		return 0
	}
	return g.l[a][b]
}

// sumMatrix returns the entrywise sum x+y of two square matrices.
func sumMatrix(x, y [][]float64) [][]float64 {
	n := len(x)
	out := make([][]float64, n)
	flat := make([]float64, n*n)
	for a := range x {
		out[a] = flat[a*n : (a+1)*n : (a+1)*n]
		for b := range x[a] {
			out[a][b] = x[a][b] + y[a][b]
		}
	}
	return out
}

func indices(m *topo.Model, cpus []int) ([]int, error) {
	idx := make([]int, len(cpus))
	seen := map[int]bool{}
	for a, id := range cpus {
		i, ok := m.Index(id)
		if !ok {
			return nil, fmt.Errorf("%w: cpu %d is not in model %q", ErrGroup, id, m.Name)
		}
		if seen[id] {
			return nil, fmt.Errorf("%w: cpu %d listed twice", ErrGroup, id)
		}
		seen[id], idx[a] = true, i
	}
	return idx, nil
}

func localMatrix(full [][]float64, idx []int) [][]float64 {
	n := len(idx)
	out := make([][]float64, n)
	flat := make([]float64, n*n)
	for a, i := range idx {
		out[a] = flat[a*n : (a+1)*n : (a+1)*n]
		for b, j := range idx {
			out[a][b] = full[i][j]
		}
	}
	return out
}

func (g *group) n() int { return len(g.ids) }

// local returns the local index of OS CPU id.
func (g *group) local(id int) (int, bool) {
	for a, x := range g.ids {
		if x == id {
			return a, true
		}
	}
	return 0, false
}

// cheapestRoot is Smelt's root choice: the member with the lowest total send
// cost to every other member (ties to the lower local index).
func (g *group) cheapestRoot() int {
	best, bestCost := 0, 0.0
	for a := range g.ids {
		sum := 0.0
		for b := range g.ids {
			sum += g.s[a][b]
		}
		if a == 0 || sum < bestCost {
			best, bestCost = a, sum
		}
	}
	return best
}

// nodesInOrder returns the distinct NUMA nodes of the group in order of
// their first member, starting with the root's node.
func (g *group) nodesInOrder(root int) []int {
	order := []int{g.node[root]}
	seen := map[int]bool{g.node[root]: true}
	for a := range g.ids {
		if !seen[g.node[a]] {
			seen[g.node[a]] = true
			order = append(order, g.node[a])
		}
	}
	return order
}
