package match

import "slices"

// The slow paths: operations that must see the whole table at once.

// lockAll locks every shard, in index order (see Invariants).
func (t *Table[M, R]) lockAll() {
	for i := range t.shards {
		t.lock(&t.shards[i])
	}
}

func (t *Table[M, R]) unlockAll() {
	for i := len(t.shards) - 1; i >= 0; i-- {
		t.unlock(&t.shards[i])
	}
}

// postWild is Post for a key with wildcards.
func (t *Table[M, R]) postWild(k Key, r R) (m M, matched bool) {
	t.lockAll()
	defer t.unlockAll()
	if s, sl := t.earliest(k); s != nil {
		return s.popUnexp(sl, sl.key.hash()), true
	}
	t.lockWild()
	t.clock++
	t.wild = append(t.wild, wildRecv[R]{key: k, stamp: t.clock, r: r})
	t.nwild.Add(1)
	t.unlockWild()
	return m, false
}

// earliest finds the earliest arrived unexpected message that the receive
// key k accepts and returns its shard and slot, or nil. The caller holds
// every shard lock, or k is exact and the caller holds k's shard lock.
func (t *Table[M, R]) earliest(k Key) (*shard[M, R], *slot[M, R]) {
	if !k.Wild() {
		h := k.hash()
		s := t.shard(h)
		if sl := s.keys.find(k, h); sl != nil && sl.unexp.head != nil {
			return s, sl
		}
		return nil, nil
	}
	var best *shard[M, R]
	var bestSlot *slot[M, R]
	for i := range t.shards {
		if s := &t.shards[i]; s.nUnexp > 0 {
			if sl := s.earliest(k); sl != nil && (best == nil || sl.unexp.head.stamp < bestSlot.unexp.head.stamp) {
				best, bestSlot = s, sl
			}
		}
	}
	return best, bestSlot
}

// earliest is Table.earliest within one shard, for a wildcard k.
func (s *shard[M, R]) earliest(k Key) (best *slot[M, R]) {
	for i := range s.keys.slots {
		sl := &s.keys.slots[i]
		if sl.unexp.head != nil && k.Matches(sl.key) && (best == nil || sl.unexp.head.stamp < best.unexp.head.stamp) {
			best = sl
		}
	}
	return best
}

// Probe reports the earliest arrived unexpected message that a receive
// with key k would match, and its concrete key, without removing it, as
// MPI_Iprobe does. A wildcard k locks the whole table, as Post does.
//
// Any goroutine may call Probe. The message may be taken by a concurrent
// Post before the caller acts on the answer; a caller that must receive
// exactly the probed message should Post with the returned key from the
// only goroutine that receives on it.
func (t *Table[M, R]) Probe(k Key) (m M, key Key, ok bool) {
	if checkReceive(k) != nil {
		return m, k, false
	}
	if k.Wild() {
		t.lockAll()
		defer t.unlockAll()
	} else {
		s := t.shard(k.hash())
		t.lock(s)
		defer t.unlock(s)
	}
	if _, sl := t.earliest(k); sl != nil {
		return sl.unexp.head.val, sl.key, true
	}
	return m, k, false
}

// Cancel removes the earliest posted receive that was posted with exactly
// the key k (wildcards compared as values, not expanded) and that match
// accepts, reporting whether it found one. A false result means the
// receive was matched already (or never posted): the caller must then
// expect its delivery.
//
// Any goroutine may call Cancel. match runs with a lock held: it must be
// quick and must not call the Table.
func (t *Table[M, R]) Cancel(k Key, match func(R) bool) bool {
	if !k.Wild() {
		h := k.hash()
		s := t.shard(h)
		t.lock(s)
		ok := s.cancel(k, h, match)
		t.unlock(s)
		return ok
	}
	t.lockWild()
	defer t.unlockWild()
	for i, w := range t.wild {
		if w.key == k && match(w.r) {
			t.dropWild(i)
			return true
		}
	}
	return false
}

// dropWild removes wild[i]; the caller holds wmu.
func (t *Table[M, R]) dropWild(i int) {
	t.wild = slices.Delete(t.wild, i, i+1)
	t.nwild.Add(-1)
}

// RemoveSource removes and returns every receive posted in communicator
// comm for source src — exact ones and those with AnyTag — for a peer
// that is gone, in no particular order. AnySource receives stay: another
// peer may still satisfy them. Unexpected messages from src stay too: they
// arrived and may still be received. With src AnySource it removes the
// receives posted with AnySource, for a caller with no peer left.
//
// Any goroutine may call RemoveSource. It locks the whole table and scans
// every posted key, so it is meant for the rare loss of a peer.
func (t *Table[M, R]) RemoveSource(comm uint32, src int32) (posted []R) {
	if src < AnySource {
		return nil
	}
	t.lockAll()
	defer t.unlockAll()
	for i := range t.shards {
		posted = t.shards[i].takeSource(comm, src, posted)
	}
	return t.removeWildSource(comm, src, posted)
}

// removeWildSource moves wildcard receives for comm and src to out.
func (t *Table[M, R]) removeWildSource(comm uint32, src int32, out []R) []R {
	t.lockWild()
	defer t.unlockWild()
	before := len(out)
	t.wild = slices.DeleteFunc(t.wild, func(w wildRecv[R]) bool {
		if w.key.Comm == comm && w.key.Source == src {
			out = append(out, w.r)
			return true
		}
		return false
	})
	t.nwild.Add(-int64(len(out) - before)) // after the removal (I2)
	return out
}

// Len reports how many unexpected messages and posted receives the table
// holds. Any goroutine may call it; it locks the whole table, so it is for
// tests and diagnostics, not for fast paths.
func (t *Table[M, R]) Len() (unexpected, posted int) {
	t.lockAll()
	defer t.unlockAll()
	for i := range t.shards {
		unexpected += int(t.shards[i].nUnexp)
		posted += int(t.shards[i].nPosted)
	}
	t.lockWild()
	posted += len(t.wild)
	t.unlockWild()
	return unexpected, posted
}
