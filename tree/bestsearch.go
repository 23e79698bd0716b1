package tree

import "slices"

// search is best's local search. A tree is kept as parent pointers and
// unordered child sets: the broadcast send order is always Jackson's rule
// (see reorder), which is optimal for any shape, and a reduction does not
// depend on order. Every node caches two subtree values:
//
//   - tail: how long after the node is active its whole subtree is (the
//     broadcast latency of the subtree);
//   - comp: when the node has received its subtree's reduction.
//
// A move changes the children of at most two nodes, so only those nodes and
// their ancestors need new values: a candidate is evaluated in time
// proportional to depth × degree, not to the group size. This is what makes
// a full neighbourhood scan affordable on hundreds of CPUs.
//
// Moves are re-parenting any non-root node with its subtree under a node
// outside that subtree, and swapping the places of two nodes neither of
// which is the other's ancestor (each keeps the other's parent and
// children). Each pass scans every node once in index order and applies
// its best improving move; passes repeat until none improves, at most
// maxPasses times so that run time stays bounded on large groups.
type search struct {
	g      *group
	op     Op
	root   int
	parent []int
	kids   [][]int
	depth  []int
	tin    []int // preorder interval: u is in v's subtree iff tin[v] <= tin[u] < tout[v]
	tout   []int
	tail   []float64
	comp   []float64
	lat    float64

	// Scratch for evaluating a candidate without changing the tree.
	stamp  int
	seen   []int // seen[x] == stamp: ntail[x], ncomp[x] hold x's new values
	ntail  []float64
	ncomp  []float64
	chainA []int
	chainB []int
	kbuf   []int
	jobs   []job
}

// job is one child as seen by its parent: key orders the jobs (a
// broadcast's delivery time, a reduction's arrival), dur is the parent's
// busy time for it.
type job struct{ key, dur float64 }

// maxPasses caps the passes over all nodes. Improvements dwindle fast;
// groups up to a few dozen CPUs converge well before the cap, the 384-CPU
// machines in a few seconds at it.
const maxPasses = 30

func newSearch(g *group, s *shape, op Op) *search {
	n := g.n()
	l := &search{g: g, op: op, root: s.root, kids: make([][]int, n)}
	for u, k := range s.kids {
		l.kids[u] = append([]int(nil), k...)
	}
	l.parent, l.depth = make([]int, n), make([]int, n)
	l.tin, l.tout = make([]int, n), make([]int, n)
	l.tail, l.comp = make([]float64, n), make([]float64, n)
	l.seen, l.ntail, l.ncomp = make([]int, n), make([]float64, n), make([]float64, n)
	l.refresh()
	return l
}

// refresh recomputes everything derived from parent/kids after a change.
func (l *search) refresh() {
	l.stamp++ // no scratch value is current: read the cached ones
	l.parent[l.root], l.depth[l.root] = -1, 0
	order := preorder(&shape{root: l.root, kids: l.kids}, nil)
	for _, u := range order {
		for _, c := range l.kids[u] {
			l.parent[c], l.depth[c] = u, l.depth[u]+1
		}
	}
	l.intervals()
	for i := len(order) - 1; i >= 0; i-- {
		u := order[i]
		l.tail[u], l.comp[u] = l.values(u, l.kids[u])
	}
	l.lat = l.score(l.root)
}

// intervals numbers nodes in depth-first preorder for subtree tests.
func (l *search) intervals() {
	t := 0
	var walk func(u int)
	walk = func(u int) {
		l.tin[u] = t
		t++
		for _, c := range l.kids[u] {
			walk(c)
		}
		l.tout[u] = t
	}
	walk(l.root)
}

func (l *search) inSubtree(u, v int) bool { return l.tin[v] <= l.tin[u] && l.tin[u] < l.tout[v] }

// score is the op's latency given the root's values (new ones if stamped).
func (l *search) score(root int) float64 {
	t, c := l.val(root)
	switch l.op {
	case Bcast:
		return t
	case Reduce:
		return c
	}
	return t + c
}

// val returns x's values for the candidate being evaluated.
func (l *search) val(x int) (tail, comp float64) {
	if l.seen[x] == l.stamp {
		return l.ntail[x], l.ncomp[x]
	}
	return l.tail[x], l.comp[x]
}

// values computes x's tail and comp from its children's current values.
// Only the ones the op needs are computed; the other is left zero.
func (l *search) values(x int, kids []int) (tail, comp float64) {
	g := l.g
	if l.op != Reduce {
		jobs := l.jobs[:0]
		for _, c := range kids {
			t, _ := l.val(c)
			jobs = append(jobs, job{g.r[x][c] + t, g.s[x][c]})
		}
		slices.SortFunc(jobs, func(a, b job) int { return cmpFloat(b.key, a.key) })
		t := 0.0
		for _, j := range jobs {
			t += j.dur
			tail = max(tail, t+j.key)
		}
		l.jobs = jobs
	}
	if l.op != Bcast {
		jobs := l.jobs[:0]
		for _, c := range kids {
			_, cc := l.val(c)
			jobs = append(jobs, job{cc + g.s[c][x], g.r[c][x]})
		}
		slices.SortFunc(jobs, func(a, b job) int { return cmpFloat(a.key, b.key) })
		for _, j := range jobs {
			comp = max(comp, j.key) + j.dur
		}
		l.jobs = jobs
	}
	return tail, comp
}
