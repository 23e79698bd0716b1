package match

// A shard's keys live in an open-addressing table with linear probing, in
// the spirit of MPIV's bucket arrays: a lookup hashes the key once (the
// same hash that chose the shard) and usually reads one slot. Deletion
// shifts the rest of the probe run back instead of leaving tombstones, and
// the table halves when it is an eighth full, so memory follows the keys
// in use, not the number of distinct keys ever seen. In a table of the
// smallest size, a slot whose FIFOs empty stays with its key while at most
// a quarter of the slots are used (release): the key's next receive or
// message — a stream's next one, a ping-pong's next receive — finds it in
// place instead of claiming a slot and giving it back each time. add
// drops such empty slots before it would grow the table, and every resize
// drops them. Every method runs with the shard's lock held.

// minSlots is the smallest (and initial) table size, a power of two.
const minSlots = 8

// slot holds one key's unexpected messages and exact posted receives; at
// most one of the two is non-empty (I1). A slot is in use while either is.
type slot[M, R any] struct {
	key    Key
	used   bool
	unexp  fifo[M]
	posted fifo[R]
}

func (s *slot[M, R]) empty() bool { return s.unexp.head == nil && s.posted.head == nil }

// index is the key table of one shard; used counts its used slots, empty
// ones kept for their keys included.
type index[M, R any] struct {
	slots []slot[M, R]
	used  int
}

// home is where k's probe run starts: low bits of the hash, while the
// shard was chosen by high bits.
func (x *index[M, R]) home(h uint64) int { return int(h & uint64(len(x.slots)-1)) }

// probe returns k's slot index and true, or the index of the free slot
// where k's probe run ends and false. The table always has a free slot.
func (x *index[M, R]) probe(k Key, h uint64) (int, bool) {
	for i := x.home(h); ; i = (i + 1) & (len(x.slots) - 1) {
		if !x.slots[i].used {
			return i, false
		}
		if x.slots[i].key == k {
			return i, true
		}
	}
}

// find returns k's slot, or nil; the pointer is valid until the next add
// or release.
func (x *index[M, R]) find(k Key, h uint64) *slot[M, R] {
	if i, ok := x.probe(k, h); ok {
		return &x.slots[i]
	}
	return nil
}

// add returns k's slot, claiming one if k has none; the pointer is valid
// until the next add or release.
func (x *index[M, R]) add(k Key, h uint64) *slot[M, R] {
	if 2*(x.used+1) > len(x.slots) && len(x.slots) == minSlots {
		x.resize(minSlots) // drops the empty slots kept, if any
	}
	if 2*(x.used+1) > len(x.slots) {
		x.resize(2 * len(x.slots))
	}
	i, ok := x.probe(k, h)
	if !ok {
		x.slots[i].key, x.slots[i].used = k, true
		x.used++
	}
	return &x.slots[i]
}

// release frees k's slot s if both its FIFOs are empty, closing the gap so
// that every remaining key stays reachable from its home; in a table of
// the smallest size at most a quarter used it keeps the empty slot for its
// key instead.
func (x *index[M, R]) release(s *slot[M, R], h uint64) {
	if !s.empty() || len(x.slots) == minSlots && 4*x.used <= minSlots {
		return
	}
	mask := len(x.slots) - 1
	hole, _ := x.probe(s.key, h)
	for i := (hole + 1) & mask; x.slots[i].used; i = (i + 1) & mask {
		// The entry at i may fill the hole unless its home lies
		// cyclically in (hole, i].
		if home := x.home(x.slots[i].key.hash()); (i-home)&mask >= (i-hole)&mask {
			x.slots[hole] = x.slots[i]
			hole = i
		}
	}
	x.slots[hole] = slot[M, R]{}
	x.used--
	if len(x.slots) > minSlots && 8*x.used < len(x.slots) {
		x.resize(len(x.slots) / 2)
	}
}

// resize rehashes the keys in use into n slots, dropping empty ones.
func (x *index[M, R]) resize(n int) {
	old := x.slots
	x.slots = make([]slot[M, R], n)
	x.used = 0
	for i := range old {
		if old[i].used && !old[i].empty() {
			j, _ := x.probe(old[i].key, old[i].key.hash())
			x.slots[j] = old[i]
			x.used++
		}
	}
}
