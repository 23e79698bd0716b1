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
// its best improving move (see cost.better: a lower latency, or the same
// latency with fewer critical paths); passes repeat until none improves,
// at most maxPasses times so that run time stays bounded on large groups.
type search struct {
	g      *group
	op     Op
	root   int
	parent []int
	kids   [][]int
	depth  []int
	tin    []int // preorder interval: u is in v's subtree iff tin[v] <= tin[u] < tout[v]
	tout   []int
	val    []vals
	cur    cost

	// progress, when not nil, is called before each node a pass scans
	// with the nodes scanned so far over all passes.
	progress func(done int)

	// Scratch for evaluating a candidate without changing the tree.
	stamp  int
	seen   []int // seen[x] == stamp: nval[x] holds x's value after the candidate
	nval   []vals
	chainA []int
	chainB []int
	kbuf   []int
	jobs   []job
}

// vals are a node's cached subtree values. crit counts the subtree's
// critical paths: leaves reached exactly at tail (broadcast), children
// chains that determine comp (reduction). On machines whose costs come in
// a few classes many paths tie for the latency, and no single move can
// shorten them all; fewer critical paths at the same latency is progress
// that later moves turn into a shorter latency.
type vals struct {
	tail, comp   float64
	critT, critC int
}

// cost orders trees: latency first, then the number of critical paths.
type cost struct {
	lat  float64
	crit int
}

// better reports whether a is an acceptable step down from b: a clearly
// lower latency, or no higher latency and fewer critical paths. Every
// accepted step lowers (lat, crit) lexicographically, so the search cannot
// cycle, and the latency never rises.
func (a cost) better(b cost) bool {
	return a.lat < b.lat*(1-1e-9) || (a.lat <= b.lat && a.crit < b.crit)
}

// job is one child c as seen by its parent: key orders the jobs (a
// broadcast's delivery time, a reduction's arrival), dur is the parent's
// busy time for it.
type job struct {
	key, dur float64
	c        int
}

// maxPasses caps the passes over all nodes so that run time stays bounded:
// a pass costs about n² move evaluations of depth × degree each. Groups of
// a few dozen CPUs converge in a handful of passes; the 384-CPU hwloc
// machine (24n8c2t, estimated costs) converges in 16–25, about 0.12 s
// each, so the cap only matters on pathological inputs.
const maxPasses = 60

func newSearch(g *group, s *shape, op Op) *search {
	n := g.n()
	l := &search{g: g, op: op, root: s.root, kids: make([][]int, n)}
	for u, k := range s.kids {
		l.kids[u] = append([]int(nil), k...)
	}
	l.parent, l.depth = make([]int, n), make([]int, n)
	l.tin, l.tout = make([]int, n), make([]int, n)
	l.val, l.nval, l.seen = make([]vals, n), make([]vals, n), make([]int, n)
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
		l.val[u] = l.values(u, l.kids[u])
	}
	l.cur = l.score()
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

// score is the op's cost from the root's values (new ones if stamped).
func (l *search) score() cost {
	v := l.get(l.root)
	switch l.op {
	case Bcast:
		return cost{v.tail, v.critT}
	case Reduce:
		return cost{v.comp, v.critC}
	}
	return cost{v.tail + v.comp, v.critT + v.critC}
}

// get returns x's values for the candidate being evaluated.
func (l *search) get(x int) vals {
	if l.seen[x] == l.stamp {
		return l.nval[x]
	}
	return l.val[x]
}

// values computes x's values from its children's current ones. Only the
// ones the op needs are computed; the others are left zero.
func (l *search) values(x int, kids []int) vals {
	var v vals
	if len(kids) == 0 {
		return vals{critT: 1, critC: 1}
	}
	switch l.op {
	case Reduce:
	case ReleaseBarrier:
		v.tail, v.critT = l.releaseValues(x, kids)
	default:
		v.tail, v.critT = l.bcastValues(x, kids)
	}
	if l.op != Bcast {
		v.comp, v.critC = l.reduceValues(x, kids)
	}
	return v
}

// bcastValues sends in Jackson order (longest delivery first); a child's
// delivery is its flight, receive and own tail.
func (l *search) bcastValues(x int, kids []int) (tail float64, crit int) {
	g, jobs := l.g, l.jobs[:0]
	for _, c := range kids {
		jobs = append(jobs, job{g.fr[x][c] + l.get(c).tail, g.s[x][c], c})
	}
	slices.SortFunc(jobs, func(a, b job) int { return cmpFloat(b.key, a.key) })
	t := 0.0
	for _, j := range jobs {
		t += j.dur
		tail = max(tail, t+j.key)
	}
	t = 0
	for _, j := range jobs {
		if t += j.dur; t+j.key >= tail*(1-1e-9) {
			crit += l.get(j.c).critT
		}
	}
	l.jobs = jobs
	return tail, crit
}

// releaseValues releases every child at once: the tail is the slowest
// child's send, flight, receive and own tail; the critical children attain it.
func (l *search) releaseValues(x int, kids []int) (tail float64, crit int) {
	g := l.g
	for _, c := range kids {
		tail = max(tail, g.s[x][c]+g.fr[x][c]+l.get(c).tail)
	}
	for _, c := range kids {
		if g.s[x][c]+g.fr[x][c]+l.get(c).tail >= tail*(1-1e-9) {
			crit += l.get(c).critT
		}
	}
	return tail, crit
}

// reduceValues receives in arrival order (a child's completion, send and
// flight); comp is the latest arrival plus
// every receive after it, the critical children those that attain it.
func (l *search) reduceValues(x int, kids []int) (comp float64, crit int) {
	g, jobs := l.g, l.jobs[:0]
	for _, c := range kids {
		jobs = append(jobs, job{l.get(c).comp + g.sf[c][x], g.r[c][x], c})
	}
	slices.SortFunc(jobs, func(a, b job) int { return cmpFloat(a.key, b.key) })
	for _, j := range jobs {
		comp = max(comp, j.key) + j.dur
	}
	suffix := 0.0
	for i := len(jobs) - 1; i >= 0; i-- {
		if suffix += jobs[i].dur; jobs[i].key+suffix >= comp*(1-1e-9) {
			crit += l.get(jobs[i].c).critC
		}
	}
	l.jobs = jobs
	return comp, crit
}
