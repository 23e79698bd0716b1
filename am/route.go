package am

import "slices"

// routes is where this rank sends each destination's messages: the pure
// routing decision of node-level aggregation (docs/design/am.md). It
// depends only on the ranks' leaders, so every rank computes the same
// routes for the same world.
type routes struct {
	self  int
	host  []int   // rank -> index of its host, hosts ordered by leader
	ranks [][]int // host index -> its ranks, ascending
	on    bool    // NodeAggregation

	first []int   // dest -> the rank this rank's messages to dest go to
	wrap  []bool  // dest -> whether they travel in a relay envelope
	path  [][]int // dest -> every rank the route passes, dest included
}

// plan returns self's routes, given each rank's leader (the lowest rank
// on its host) and whether ranks on one host combine towards another.
func plan(self int, leaders []int, on bool) routes {
	rt := routes{self: self, on: on, host: make([]int, len(leaders))}
	heads := slices.Compact(slices.Sorted(slices.Values(leaders)))
	rt.ranks = make([][]int, len(heads))
	for r, l := range leaders {
		h, _ := slices.BinarySearch(heads, l)
		rt.host[r] = h
		rt.ranks[h] = append(rt.ranks[h], r)
	}
	for d := range leaders {
		first, path := rt.route(d)
		rt.first = append(rt.first, first)
		rt.wrap = append(rt.wrap, first != d)
		rt.path = append(rt.path, path)
	}
	return rt
}

// pair is host a's rank that sends a's traffic towards host b and
// receives b's traffic: spread over a's ranks by b's index.
func (rt *routes) pair(a, b int) int {
	rs := rt.ranks[a]
	return rs[b%len(rs)]
}

// route returns the first hop from self to d and the ranks on the way.
func (rt *routes) route(d int) (int, []int) {
	a, b := rt.host[rt.self], rt.host[d]
	if !rt.on || a == b {
		return d, []int{d}
	}
	var path []int
	for _, r := range []int{rt.pair(a, b), rt.pair(b, a), d} {
		if r != rt.self && !slices.Contains(path, r) {
			path = append(path, r)
		}
	}
	return path[0], path
}

// next returns where this rank forwards an envelope for d, which is not
// this rank: d itself on this host, else the pair rank of d's host
// towards this one.
func (rt *routes) next(d int) int {
	a, b := rt.host[rt.self], rt.host[d]
	if a == b {
		return d
	}
	return rt.pair(b, a)
}

// through reports whether the route to dest passes rank r.
func (rt *routes) through(dest, r int) bool { return slices.Contains(rt.path[dest], r) }

// remote reports whether r is on another host.
func (rt *routes) remote(r int) bool { return rt.host[r] != rt.host[rt.self] }
