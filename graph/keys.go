package graph

// SearchKeys picks up to count distinct roots among the vertices for
// which eligible is true (degree >= 1 not counting self-loops), in an
// order fixed by seed: all of them, shuffled, when there are no more
// than count. It returns nil when n or count is not positive.
func SearchKeys(n int64, eligible func(v int64) bool, count int, seed uint64) []int64 {
	if n < 1 || count < 1 {
		return nil
	}
	var total int64
	for v := range n {
		if eligible(v) {
			total++
		}
	}
	p := newPerm(uint64(n), mix64(seed^0x6b657973))
	keys := make([]int64, 0, min(int64(count), total))
	// Walking a permutation of the vertices visits each once, so the
	// keys do not repeat and the walk ends.
	for i := uint64(0); i < uint64(n) && len(keys) < cap(keys); i++ {
		if v := int64(p.at(i)); eligible(v) {
			keys = append(keys, v)
		}
	}
	return keys
}
