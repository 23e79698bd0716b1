package measure

import "github.com/plexus-hpc/plexus/internal/roundrobin"

// tournament returns the rounds of a round-robin tournament of the n
// CPUs' positions (internal/roundrobin): every unordered pair {a, b},
// a < b, in exactly one round, no CPU twice in a round. The loaded phase
// runs each round's pairs at once, so that every CPU is busy while each
// pair is timed.
func tournament(n int) [][][2]int { return roundrobin.Pairs(n) }
