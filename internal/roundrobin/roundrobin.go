// Package roundrobin schedules a round-robin tournament by the circle
// method: every unordered pair of n players meets in exactly one round,
// and no player meets two others in one round. Plexus times pairs of
// CPUs (topo/measure's loaded phase) and of ranks (comm/collective's
// start) so, all pairs of a round at once.
package roundrobin

// Rounds is the number of rounds among n players: n-1 for even n, n for
// odd n (one player rests in each), 0 below 2.
func Rounds(n int) int {
	if n < 2 {
		return 0
	}
	return n + n%2 - 1
}

// Partner returns player p's partner in round r (0 ≤ r < Rounds(n)), or
// -1 when p rests that round.
func Partner(p, r, n int) int {
	m := n + n%2 // an odd n gets a dummy player m-1, whose partner rests
	var q int
	switch {
	case p == m-1:
		q = r
	case p == r:
		q = m - 1
	default:
		q = ((2*r-p)%(m-1) + (m - 1)) % (m - 1)
	}
	if q >= n {
		return -1
	}
	return q
}

// Pairs returns every round's pairs {a, b}, a < b, in order of a.
func Pairs(n int) [][][2]int {
	out := make([][][2]int, Rounds(n))
	for r := range out {
		for a := range n {
			if b := Partner(a, r, n); b > a {
				out[r] = append(out[r], [2]int{a, b})
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
