package tree

import (
	"fmt"

	"github.com/plexus-hpc/plexus/topo"
)

// ExactMaxCPUs is the largest group Exact accepts. The search is
// exponential; 8 CPUs take milliseconds, 9 well under a second on the
// models we know, 10 could take minutes on unlucky cost matrices.
const ExactMaxCPUs = 9

// Exact returns the broadcast tree (shape and send order) with the lowest
// simulated broadcast latency of all trees over cpus rooted at root
// (AutoRoot: the cheapest root, as Build chooses), and that latency. It
// wants at most ExactMaxCPUs CPUs. Optimal means within 1e-9 relative of
// the true minimum: the search only looks for trees better than that.
//
// Smelt (§5.2) found optimal trees for 8 cores by brute force in 5 hours;
// Exact uses branch and bound over broadcast schedules instead.
func Exact(m *topo.Model, cpus []int, root int) (*Tree, float64, error) {
	n := len(cpus)
	if cpus == nil {
		n = m.N()
	}
	if n > ExactMaxCPUs {
		return nil, 0, fmt.Errorf("%w: exact search handles at most %d CPUs, group has %d", ErrGroup, ExactMaxCPUs, n)
	}
	g, err := newGroup(m, cpus)
	if err != nil {
		return nil, 0, err
	}
	r, err := g.rootFor(root)
	if err != nil {
		return nil, 0, err
	}
	s, lat := exact(g, r)
	return s.toTree(g, "exact", m.Name), lat, nil
}

// exact runs the search seeded with the best heuristic tree, so only
// strictly better schedules are explored and the seed is kept on a tie.
func exact(g *group, root int) (*shape, float64) {
	seed := best(g, root, Bcast, nil)
	x := newSim(g)
	seedLat, _ := x.bcast(seed)
	e := newExactSearch(g, root, seedLat)
	e.dfs(0)
	if e.found == nil {
		return seed, seedLat
	}
	s := newShape(g.n(), root)
	for _, ed := range e.found {
		s.add(ed.from, ed.to)
	}
	lat, _ := x.bcast(s)
	return s, lat
}

// exactSearch enumerates broadcast schedules as an event process. The
// state is the set of informed nodes, each with the time it is next free;
// a node that will send no more is retired. At every step the informed,
// unretired node that is free first decides: send to some uninformed node
// (which is informed Send+Latency+Recv later and free from then on) or retire.
// Every tree with a send order is exactly one path of decisions, since a
// node's sends are decided in time order.
type exactSearch struct {
	n        int
	c        [ExactMaxCPUs][ExactMaxCPUs]float64 // s+r: informing cost
	s, r     [ExactMaxCPUs][ExactMaxCPUs]float64 // send; flight and receive (group.fr)
	free     [ExactMaxCPUs]float64
	alive    uint16 // informed and not retired
	informed uint16
	all      uint16
	best     float64 // latency to beat, less the tolerance
	path     []edge
	found    []edge // best schedule's sends, in decision order
}

type edge struct{ from, to int }

func newExactSearch(g *group, root int, seedLat float64) *exactSearch {
	n := g.n()
	e := &exactSearch{n: n, all: 1<<n - 1, best: seedLat * (1 - 1e-9)}
	for a := range n {
		for b := range n {
			e.s[a][b], e.r[a][b], e.c[a][b] = g.s[a][b], g.fr[a][b], g.s[a][b]+g.fr[a][b]
		}
	}
	e.alive, e.informed = 1<<root, 1<<root
	e.path = make([]edge, 0, n)
	return e
}

// first returns the unretired informed node free first (lowest index on
// ties), or -1.
func (e *exactSearch) first() int {
	u := -1
	for a := range e.n {
		if e.alive&(1<<a) != 0 && (u < 0 || e.free[a] < e.free[u]) {
			u = a
		}
	}
	return u
}

// dfs explores the decisions of the earliest free node; done is the latest
// activation so far.
func (e *exactSearch) dfs(done float64) {
	if e.informed == e.all {
		if done < e.best {
			e.best = done * (1 - 1e-9)
			e.found = append(e.found[:0], e.path...)
		}
		return
	}
	u := e.first()
	if u < 0 {
		return // nobody left to inform the rest
	}
	var kids [ExactMaxCPUs]choice
	k := e.sendChoices(u, done, kids[:0])
	for _, ch := range k {
		if ch.bound >= e.best {
			break // sorted by bound: the rest cannot win either
		}
		e.send(u, ch.v, done)
	}
	e.retire(u, done)
}

// choice is a send to v with the lower bound it leads to.
type choice struct {
	v     int
	bound float64
}

// sendChoices returns u's possible sends ordered by lower bound, so the
// most promising is explored first and the loop can stop early.
func (e *exactSearch) sendChoices(u int, done float64, out []choice) []choice {
	f := e.free[u]
	for v := range e.n {
		if e.informed&(1<<v) != 0 {
			continue
		}
		act := f + e.s[u][v] + e.r[u][v]
		e.free[u], e.free[v] = f+e.s[u][v], act
		e.informed |= 1 << v
		e.alive |= 1 << v
		b := e.bound(max(done, act))
		e.informed &^= 1 << v
		e.alive &^= 1 << v
		out = insertChoice(out, choice{v, b})
	}
	e.free[u] = f
	return out
}

func insertChoice(out []choice, ch choice) []choice {
	out = append(out, ch)
	i := len(out) - 1
	for i > 0 && out[i-1].bound > ch.bound {
		out[i] = out[i-1]
		i--
	}
	out[i] = ch
	return out
}

func (e *exactSearch) send(u, v int, done float64) {
	f := e.free[u]
	act := f + e.s[u][v] + e.r[u][v] // the simulator's rounding
	e.free[u], e.free[v] = f+e.s[u][v], act
	e.informed |= 1 << v
	e.alive |= 1 << v
	e.path = append(e.path, edge{u, v})
	e.dfs(max(done, act))
	e.path = e.path[:len(e.path)-1]
	e.informed &^= 1 << v
	e.alive &^= 1 << v
	e.free[u] = f
}

func (e *exactSearch) retire(u int, done float64) {
	e.alive &^= 1 << u
	if e.alive != 0 && e.bound(done) < e.best {
		e.dfs(done)
	}
	e.alive |= 1 << u
}

// bound is a lower bound on the latency of any completion of the current
// state: every uninformed node is informed either by an unretired node
// after it is next free, or by another uninformed node after that one is
// informed, each hop costing at least its send, flight and receive. Shortest informing times along such chains (Dijkstra over the
// uninformed nodes) bound each node's activation from below.
func (e *exactSearch) bound(done float64) float64 {
	var dist [ExactMaxCPUs]float64
	left := e.all &^ e.informed
	for v := range e.n {
		if left&(1<<v) == 0 {
			continue
		}
		dist[v] = inf
		for u := range e.n {
			if e.alive&(1<<u) != 0 {
				dist[v] = min(dist[v], e.free[u]+e.c[u][v])
			}
		}
	}
	lb := done
	for left != 0 {
		w := -1
		for v := range e.n {
			if left&(1<<v) != 0 && (w < 0 || dist[v] < dist[w]) {
				w = v
			}
		}
		left &^= 1 << w
		lb = max(lb, dist[w])
		for v := range e.n {
			if left&(1<<v) != 0 {
				dist[v] = min(dist[v], dist[w]+e.c[w][v])
			}
		}
	}
	return lb
}

const inf = 1e300
