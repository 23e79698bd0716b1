package tree

// Moves of best's local search and their incremental evaluation.

// edit is a candidate move: re-parent v (with its subtree) under u, or with
// swap, exchange the places of v and u in the tree.
type edit struct {
	v, u int
	swap bool
}

// run improves the tree until a pass finds nothing or maxPasses is hit.
func (l *search) run() {
	for p := range maxPasses {
		if !l.pass(p) {
			return
		}
	}
}

// pass applies, for every non-root node in index order, its best strictly
// improving move, if any. It reports whether anything changed. p is the
// pass's number, for l.progress.
func (l *search) pass(p int) bool {
	improved := false
	for v := range l.kids {
		if l.progress != nil {
			l.progress(p*len(l.kids) + v)
		}
		if v == l.root {
			continue
		}
		if e, c := l.bestEditFor(v); c.better(l.cur) {
			l.apply(e)
			improved = true
		}
	}
	return improved
}

// bestEditFor returns v's best move and the cost after it (l.cur when
// nothing is better). Swaps are tried with higher-numbered nodes only, so
// each pair is tried once a pass.
func (l *search) bestEditFor(v int) (edit, cost) {
	be, bc := edit{}, l.cur
	try := func(e edit) {
		if c := l.eval(e); c.lat < bc.lat || (c.lat == bc.lat && c.crit < bc.crit) {
			be, bc = e, c
		}
	}
	for u := range l.kids {
		if u == v || u == l.root || l.inSubtree(u, v) {
			continue
		}
		if u != l.parent[v] {
			try(edit{v: v, u: u})
		}
		if u > v && !l.inSubtree(v, u) {
			try(edit{v: v, u: u, swap: true})
		}
	}
	if l.parent[v] != l.root { // the loop skips the root as a target
		try(edit{v: v, u: l.root})
	}
	return be, bc
}

// eval returns the latency after e without changing the tree: it
// recomputes the values of the nodes whose children change and of their
// ancestors, deepest first, into the stamped scratch arrays.
func (l *search) eval(e edit) cost {
	l.stamp++
	a, b := e.u, e.v
	if !e.swap {
		b = l.parent[e.v]
	}
	l.chainA, l.chainB = l.chain(e, a, l.chainA[:0]), l.chain(e, b, l.chainB[:0])
	A, B := l.chainA, l.chainB
	da, db := l.newDepth(e, a), l.newDepth(e, b)
	for i, j := 0, 0; i < len(A) || j < len(B); {
		switch {
		case j == len(B) || (i < len(A) && da-i > db-j):
			l.update(e, A[i])
			i++
		case i == len(A) || db-j > da-i:
			l.update(e, B[j])
			j++
		default: // same depth: distinct nodes are independent
			l.update(e, A[i])
			if B[j] != A[i] {
				l.update(e, B[j])
			}
			i, j = i+1, j+1
		}
	}
	return l.score()
}

func (l *search) update(e edit, x int) {
	l.nval[x] = l.values(x, l.newKids(e, x))
	l.seen[x] = l.stamp
}

// chain appends x and its ancestors after e, bottom up.
func (l *search) chain(e edit, x int, buf []int) []int {
	for ; x >= 0; x = l.newParent(e, x) {
		buf = append(buf, x)
	}
	return buf
}

func (l *search) newParent(e edit, x int) int {
	switch {
	case x == e.v && !e.swap:
		return e.u
	case e.swap && x == e.v:
		return l.parent[e.u]
	case e.swap && x == e.u:
		return l.parent[e.v]
	}
	return l.parent[x]
}

func (l *search) newDepth(e edit, x int) int {
	switch {
	case e.swap && x == e.v:
		return l.depth[e.u]
	case e.swap && x == e.u:
		return l.depth[e.v]
	}
	return l.depth[x]
}

// newKids returns x's children after e (in scratch space when changed).
func (l *search) newKids(e edit, x int) []int {
	switch {
	case e.swap && x == e.v:
		return l.kids[e.u]
	case e.swap && x == e.u:
		return l.kids[e.v]
	case e.swap && x == l.parent[e.v] && x == l.parent[e.u]:
		return l.kids[x] // siblings: the same set of children
	case e.swap && (x == l.parent[e.v] || x == l.parent[e.u]):
		l.kbuf = append(l.kbuf[:0], l.kids[x]...)
		replace(l.kbuf, e.v, e.u)
		return l.kbuf
	case !e.swap && x == l.parent[e.v]:
		l.kbuf = l.kbuf[:0]
		for _, c := range l.kids[x] {
			if c != e.v {
				l.kbuf = append(l.kbuf, c)
			}
		}
		return l.kbuf
	case !e.swap && x == e.u:
		return append(append(l.kbuf[:0], l.kids[x]...), e.v)
	}
	return l.kids[x]
}

// replace exchanges a and b wherever either occurs in s.
func replace(s []int, a, b int) {
	for i, c := range s {
		switch c {
		case a:
			s[i] = b
		case b:
			s[i] = a
		}
	}
}

// apply makes e permanent.
func (l *search) apply(e edit) {
	v, u := e.v, e.u
	pv, pu := l.parent[v], l.parent[u]
	if !e.swap {
		l.kids[pv] = deleteInt(l.kids[pv], v)
		l.kids[u] = append(l.kids[u], v)
	} else {
		l.kids[v], l.kids[u] = l.kids[u], l.kids[v]
		replace(l.kids[pv], v, u)
		if pu != pv {
			replace(l.kids[pu], v, u)
		}
	}
	l.refresh()
}

func deleteInt(s []int, x int) []int {
	out := s[:0]
	for _, c := range s {
		if c != x {
			out = append(out, c)
		}
	}
	return out
}

// shape returns the tree with Jackson's send order.
func (l *search) shape() *shape {
	s := newShape(len(l.kids), l.root)
	for u, k := range l.kids {
		if len(k) > 0 {
			s.kids[u] = append([]int(nil), k...)
		}
	}
	reorder(l.g, s)
	return s
}
