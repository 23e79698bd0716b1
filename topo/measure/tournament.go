package measure

// tournament returns the rounds of a round-robin tournament of n ≥ 2
// players 0..n-1 by the circle method: every unordered pair {a, b},
// written a < b, plays in exactly one round, and no player plays twice in
// a round. Even n takes n-1 rounds of n/2 pairs; odd n takes n rounds,
// one player resting in each. The loaded phase runs each round's pairs
// at once, so that every CPU is busy while each pair is timed.
func tournament(n int) [][][2]int {
	if n < 2 {
		return nil
	}
	m := n + n%2 // slots; with odd n, slot n is the rest
	out := make([][][2]int, m-1)
	for r := range m - 1 {
		round := make([][2]int, 0, m/2)
		// Slot m-1 stays put; the others turn one place a round, and
		// slot r+k meets slot r-k.
		round = appendPair(round, n, r, m-1)
		for k := 1; k < m/2; k++ {
			round = appendPair(round, n, (r+k)%(m-1), (r-k+m-1)%(m-1))
		}
		out[r] = round
	}
	return out
}

// appendPair appends {a, b} in order unless one of them is the rest slot.
func appendPair(round [][2]int, n, a, b int) [][2]int {
	if a >= n || b >= n {
		return round
	}
	return append(round, [2]int{min(a, b), max(a, b)})
}
