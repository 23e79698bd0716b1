package agree

// keyTable maps the 64-bit keys of the leader's values in flight to
// their slots (see lead): an insert, a lookup and a removal per
// decision, which a Go map pays for in hashing, probing its groups and
// keeping tombstones. This is open addressing with linear probing over
// a power-of-two table, at most half full, its keys already hashes.
//
// Invariants:
//
//	K1 a cell is empty iff its slot is 0 (slots start at 1);
//	K2 every key is in the cell of its home (key & mask) or after it,
//	   with no empty cell between the two (so a lookup stops at the
//	   first empty cell); a removal shifts later cells back to keep it;
//	K3 n counts the full cells, and 2*n <= len(keys).
//
// The zero value is empty and ready. A Go map is its reference twin
// (keys_test.go).
type keyTable struct {
	keys  []uint64
	slots []uint64
	n     int
}

// minKeys is the smallest table.
const minKeys = 16

// get returns the slot of key k and whether k is here.
func (t *keyTable) get(k uint64) (uint64, bool) {
	if i, ok := t.find(k); ok {
		return t.slots[i], true
	}
	return 0, false
}

// has reports whether k maps to slot s.
func (t *keyTable) has(k, s uint64) bool {
	at, ok := t.get(k)
	return ok && at == s
}

// put maps k to slot s (s > 0), replacing k's slot if it is here.
func (t *keyTable) put(k, s uint64) {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	i, ok := t.find(k)
	if !ok {
		t.n++
	}
	t.keys[i], t.slots[i] = k, s
}

// del removes k if it is here.
func (t *keyTable) del(k uint64) {
	i, ok := t.find(k)
	if !ok {
		return
	}
	mask := t.mask()
	for j := (i + 1) & mask; t.slots[j] != 0; j = (j + 1) & mask {
		// Move j's key back to the hole at i unless its home lies
		// cyclically in (i, j]: then it must stay after its home (K2).
		if h := t.keys[j] & mask; (j-h)&mask >= (j-i)&mask {
			t.keys[i], t.slots[i] = t.keys[j], t.slots[j]
			i = j
		}
	}
	t.keys[i], t.slots[i] = 0, 0
	t.n--
}

// size returns the number of keys.
func (t *keyTable) size() int { return t.n }

// find returns k's cell and true, or the empty cell where k would go
// and false.
func (t *keyTable) find(k uint64) (uint64, bool) {
	if len(t.keys) == 0 {
		return 0, false
	}
	mask := t.mask()
	i := k & mask
	for t.slots[i] != 0 {
		if t.keys[i] == k {
			return i, true
		}
		i = (i + 1) & mask
	}
	return i, false
}

func (t *keyTable) mask() uint64 { return uint64(len(t.keys)) - 1 }

// grow doubles the table (or makes the first) and puts every key back.
func (t *keyTable) grow() {
	old := *t
	size := max(minKeys, 2*len(old.keys))
	*t = keyTable{keys: make([]uint64, size), slots: make([]uint64, size)}
	for i, s := range old.slots {
		if s != 0 {
			t.put(old.keys[i], s)
		}
	}
}
