package match

import (
	"slices"
	"sync/atomic"
)

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

// maxBusy is how many shards holding unexpected messages lockBusy locks
// one by one; with more, a wildcard operation locks the whole table, whose
// scan then costs as much as its locks.
const maxBusy = 32

// busy lists the shards lockBusy locked.
type busy struct {
	n   int
	idx [maxBusy]uint16 // Config.Shards is at most 1<<16
}

func (b *busy) shards() []uint16 { return b.idx[:b.n] }

// lockBusy takes wmu, announces a wildcard operation in nwild and locks
// the shards that hold unexpected messages, which then are all the
// table's stored messages until unlockBusy (I4). It undoes everything and
// returns false if more than maxBusy shards hold messages or one of their
// locks is taken, or if wildOn is not yet set; the caller then uses
// lockAllWild.
func (t *Table[M, R]) lockBusy(b *busy) bool {
	if !t.wildOn.Load() {
		return false
	}
	t.lockWild()
	t.nwild.Add(1) // before the loads (I4)
	for i := range t.shards {
		s := &t.shards[i]
		if atomic.LoadInt32(&s.nUnexp) == 0 {
			continue
		}
		if b.n == maxBusy || !t.tryLock(s) {
			t.unlockBusy(b)
			return false
		}
		b.idx[b.n] = uint16(i)
		b.n++
	}
	return true
}

// unlockBusy unlocks the shards lockBusy locked, withdraws its
// announcement and releases wmu.
func (t *Table[M, R]) unlockBusy(b *busy) {
	for i := b.n - 1; i >= 0; i-- {
		t.unlock(&t.shards[b.idx[i]])
	}
	b.n = 0
	t.nwild.Add(-1)
	t.unlockWild()
}

// postWild is Post for a key with wildcards.
func (t *Table[M, R]) postWild(k Key, r R) (m M, matched bool) {
	var b busy
	if !t.lockBusy(&b) {
		return t.postWildAll(k, r)
	}
	defer t.unlockBusy(&b)
	if s, sl := t.earliestIn(k, b.shards()); s != nil {
		return t.popUnexp(s, sl, sl.key.hash()), true
	}
	t.appendWild(k, r)
	return m, false
}

// lockAllWild is lockAll for a wildcard operation: it sets wildOn, so
// that later ones may use lockBusy.
func (t *Table[M, R]) lockAllWild() {
	t.lockAll()
	if !t.wildOn.Load() {
		t.wildOn.Store(true) // no Arrive is counting: all shards are locked
	}
}

// postWildAll is postWild with the whole table locked.
func (t *Table[M, R]) postWildAll(k Key, r R) (m M, matched bool) {
	t.lockAllWild()
	defer t.unlockAll()
	if s, sl := t.earliest(k); s != nil {
		return t.popUnexp(s, sl, sl.key.hash()), true
	}
	t.lockWild()
	t.appendWild(k, r)
	t.unlockWild()
	return m, false
}

// appendWild stores the wildcard receive r; the caller holds wmu.
func (t *Table[M, R]) appendWild(k Key, r R) {
	t.wild = append(t.wild, wildRecv[R]{key: k, stamp: t.clock.Add(1), r: r})
	t.nwild.Add(1)
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
			best, bestSlot = s.earlier(k, best, bestSlot)
		}
	}
	return best, bestSlot
}

// earliestIn is earliest for a wildcard k over the shards lockBusy locked.
func (t *Table[M, R]) earliestIn(k Key, idx []uint16) (*shard[M, R], *slot[M, R]) {
	var best *shard[M, R]
	var bestSlot *slot[M, R]
	for _, i := range idx {
		best, bestSlot = t.shards[i].earlier(k, best, bestSlot)
	}
	return best, bestSlot
}

// earlier returns s and its earliest message k accepts if that arrived
// before the head of bestSlot (in shard best, nil for none), else best
// and bestSlot.
func (s *shard[M, R]) earlier(k Key, best *shard[M, R], bestSlot *slot[M, R]) (*shard[M, R], *slot[M, R]) {
	if sl := s.earliest(k); sl != nil && (best == nil || sl.unexp.head.stamp < bestSlot.unexp.head.stamp) {
		return s, sl
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
// MPI_Iprobe does. A wildcard k locks what a wildcard Post does.
//
// Any goroutine may call Probe. The message may be taken by a concurrent
// Post before the caller acts on the answer; a caller that must receive
// exactly the probed message should Post with the returned key from the
// only goroutine that receives on it.
func (t *Table[M, R]) Probe(k Key) (m M, key Key, ok bool) {
	if checkReceive(k) != nil {
		return m, k, false
	}
	var sl *slot[M, R]
	var b busy
	switch {
	case !k.Wild():
		s := t.shard(k.hash())
		t.lock(s)
		defer t.unlock(s)
		_, sl = t.earliest(k)
	case t.lockBusy(&b):
		defer t.unlockBusy(&b)
		_, sl = t.earliestIn(k, b.shards())
	default:
		t.lockAllWild()
		defer t.unlockAll()
		_, sl = t.earliest(k)
	}
	if sl != nil {
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
		unexpected += int(t.shards[i].nUnexp) // no Arrive is half done
		posted += int(t.shards[i].nPosted)
	}
	t.lockWild()
	posted += len(t.wild)
	t.unlockWild()
	return unexpected, posted
}
