package task

import "time"

// The scheduling policy is pure: no goroutines, no clocks, no I/O. The
// pool feeds it what it sees (who is alive, how much is queued, how many
// steals failed in a row) and random numbers it draws, so every decision
// is tested with tables.

// chooseVictim picks the rank to steal from: uniformly at random among
// the live ranks other than self, as Grappa's scheduler does, using r as
// the random draw. It reports false when no other rank is alive.
func chooseVictim(self int, dead []bool, r uint64) (int, bool) {
	live := 0
	for i, d := range dead {
		if i != self && !d {
			live++
		}
	}
	if live == 0 {
		return 0, false
	}
	k := int(r % uint64(live))
	for i, d := range dead {
		if i == self || d {
			continue
		}
		if k == 0 {
			return i, true
		}
		k--
	}
	return 0, false // unreachable: k < live
}

// stealCount is how many of a victim's queued public tasks one steal
// takes: half, rounded up, so that a victim holding one large loop range
// gives it away while it works on something else.
func stealCount(queued int) int {
	if queued <= 0 {
		return 0
	}
	return (queued + 1) / 2
}

// Backoff bounds between steal attempts that found nothing.
const (
	minBackoff = 20 * time.Microsecond
	maxBackoff = time.Millisecond
)

// backoff is the pause after fails failed attempts in a row: nothing
// after the first miss, then doubling from minBackoff up to maxBackoff,
// so that an idle rank finds new work quickly but does not flood the
// others with requests while none exists.
func backoff(fails int) time.Duration {
	if fails <= 0 {
		return 0
	}
	d := minBackoff
	for i := 1; i < fails && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// waveFallback is how long the master waits for an idle hint before its
// fails-th wave goes anyway: the hints are what end its pauses (a rank
// posts one whenever its tasks of the group run out), and the fallback
// only bounds the cost of one that never came. It grows from a
// millisecond to 16, as pingInterval does.
func waveFallback(fails int) time.Duration { return pingInterval(fails) }

// autoGrain is the iterations a ParallelFor task runs without splitting
// when Config.Grain is 0: about eight pieces per worker in the whole
// world, as Cilk's grain heuristic, between 1 and 1024.
func autoGrain(n int64, ranks, workers int) int64 {
	pieces := int64(8) * int64(ranks) * int64(workers)
	return min(max(n/max(pieces, 1), 1), 1024)
}

// block returns the part of [start, start+n) that rank of size owns in a
// collective ParallelFor: consecutive blocks that differ by at most one
// iteration, computed without overflow for any n >= 0.
func block(start, n int64, rank, size int) (lo, count int64) {
	q, rem := n/int64(size), n%int64(size)
	r := int64(rank)
	lo = start + r*q + min(r, rem)
	count = q
	if r < rem {
		count++
	}
	return lo, count
}

// pingInterval is the pause before a waiting rank's pings-th check that
// the master is alive: the master's decision is pushed, so the pings
// only bound how long a lost master goes unnoticed, from a millisecond
// doubling to 16.
func pingInterval(pings int) time.Duration {
	return time.Millisecond << min(max(pings, 0), 4)
}
