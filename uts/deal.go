package uts

import (
	"encoding/binary"
	"fmt"
)

// The build deals each split-off subtree to the rank that, as far as this
// rank knows, stores the fewest nodes: the traversal runs where the nodes
// are, so the stored counts are the traversal's balance. A build task
// sent to another rank carries its sender's rank and stored count, and
// each rank remembers the last count it heard from every other, plus the
// budgets of the tasks it sent there since (they will be stored there).
// Round-robin dealing left T3's heavy-tailed subtrees stored unevenly
// (docs/benchmarks.md, "UTS-Mem traversal that yields").

// dealerBytes is the trailer of a build task sent to another rank: the
// sender's rank and stored count.
const dealerBytes = 4 + 8

// dealTo returns the rank of ranks to build a split-off subtree on: the
// one with the smallest known count (known(r); mine for self); ties go to
// self, then to the lowest rank. It is pure when known is.
func dealTo(self int, mine int64, ranks int, known func(r int) int64) int {
	best, least := self, mine
	for r := range ranks {
		if n := known(r); r != self && n < least {
			best, least = r, n
		}
	}
	return best
}

// appendDealer appends the dealer trailer to a build task's arguments.
func appendDealer(b []byte, rank int, stored int64) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(rank))
	return binary.LittleEndian.AppendUint64(b, uint64(stored))
}

// decodeDealer reads the trailer after a build task's pending node:
// ok is false when there is none (a task spawned here).
func decodeDealer(b []byte, ranks int) (rank int, stored int64, ok bool, err error) {
	switch len(b) {
	case 0:
		return 0, 0, false, nil
	case dealerBytes:
	default:
		return 0, 0, false, fmt.Errorf("%w: build task trailer of %d bytes, want 0 or %d", ErrBadTree, len(b), dealerBytes)
	}
	rank = int(binary.LittleEndian.Uint32(b))
	stored = int64(binary.LittleEndian.Uint64(b[4:]))
	if rank < 0 || rank >= ranks || stored < 0 {
		return 0, 0, false, fmt.Errorf("%w: build task from rank %d storing %d, world of %d", ErrBadTree, rank, stored, ranks)
	}
	return rank, stored, true, nil
}
