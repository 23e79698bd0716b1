package tree

import "container/heap"

// adaptive is Smelt's adaptive tree (§3.3.1, Algorithm 1), built by an
// event-based simulation of the broadcast on the model. Whenever an active
// core is idle it sends to the most expensive inactive core (Send+Recv)
// among those on its own NUMA node or on a node no message has entered
// yet; a remote pick is replaced by the cheapest core (Send) of that node,
// and the node counts as entered from then on. A core with nothing left to
// send to is done. Ties go to the lower local index.
func adaptive(g *group, root int) *shape {
	n := g.n()
	s := newShape(n, root)
	active := make([]bool, n)
	entered := map[int]bool{g.node[root]: true}
	active[root] = true
	q := &eventQueue{{t: 0, core: root}}
	for q.Len() > 0 {
		e := heap.Pop(q).(event)
		c := pickMostExpensive(g, e.core, active, entered)
		if c < 0 {
			continue
		}
		if g.node[c] != g.node[e.core] {
			c = pickCheapestOnNode(g, e.core, g.node[c])
			entered[g.node[c]] = true
		}
		s.add(e.core, c)
		active[c] = true
		sent := e.t + g.s[e.core][c]
		heap.Push(q, event{t: sent, core: e.core})
		heap.Push(q, event{t: sent + g.r[e.core][c], core: c})
	}
	return s
}

func pickMostExpensive(g *group, i int, active []bool, entered map[int]bool) int {
	best, cost := -1, 0.0
	for c := range active {
		if active[c] || (g.node[c] != g.node[i] && entered[g.node[c]]) {
			continue
		}
		if w := g.s[i][c] + g.r[i][c]; best < 0 || w > cost {
			best, cost = c, w
		}
	}
	return best
}

// pickCheapestOnNode returns the core of node with the lowest send cost
// from i; no core of an unentered node is active yet.
func pickCheapestOnNode(g *group, i, node int) int {
	best := -1
	for c := range g.ids {
		if g.node[c] == node && (best < 0 || g.s[i][c] < g.s[i][best]) {
			best = c
		}
	}
	return best
}

// event is a core becoming idle at time t.
type event struct {
	t    float64
	core int
}

// eventQueue is a min-heap of events by time, then core index.
type eventQueue []event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].t != q[j].t {
		return q[i].t < q[j].t
	}
	return q[i].core < q[j].core
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}
