package match

import (
	"sync"
	"unsafe"
)

// cacheLine is the coherence unit shards and hot counters are padded to.
const cacheLine = 64

// shard is one lock and the keys that hash to it. Every method runs with
// mu held.
type shard[M, R any] struct {
	mu    sync.Mutex
	keys  index[M, R]
	msgs  pool[M]
	recvs pool[R]
	// nUnexp counts stored unexpected messages, plus one for an Arrive
	// that may store one (I4); a wildcard operation reads it without the
	// lock, through atomics, and skips shards where it is zero. It is
	// written only under the lock, through Table.countUnexp. nPosted
	// counts exact posted receives.
	nUnexp, nPosted int32
	_               [shardPad]byte
}

// shardLayout mirrors shard's fields (mu, keys, msgs, recvs, nUnexp,
// nPosted) with sizes that do not depend on the type parameters, so the
// padding can be a constant. Only its size is read, so the fields are
// blank.
type shardLayout struct {
	_    sync.Mutex
	_    index[struct{}, struct{}]
	_, _ pool[struct{}]
	_, _ int32
}

const shardPad = (cacheLine - unsafe.Sizeof(shardLayout{})%cacheLine) % cacheLine

func (s *shard[M, R]) init() { s.keys.slots = make([]slot[M, R], minSlots) }

// pushUnexp stores m; the caller has counted it in nUnexp already.
func (s *shard[M, R]) pushUnexp(k Key, h uint64, m M, stamp uint64) {
	s.keys.add(k, h).unexp.push(s.msgs.get(m, stamp))
}

func (s *shard[M, R]) pushPosted(k Key, h uint64, r R, stamp uint64) {
	s.pushPostedAt(s.keys.add(k, h), r, stamp)
}

// pushPostedAt appends r to the posted receives of sl, a slot add returned.
func (s *shard[M, R]) pushPostedAt(sl *slot[M, R], r R, stamp uint64) {
	sl.posted.push(s.recvs.get(r, stamp))
	s.nPosted++
}

// popUnexp takes the first message of sl, the slot of the key hashing to
// h; the caller uncounts it (Table.popUnexp does both).
func (s *shard[M, R]) popUnexp(sl *slot[M, R], h uint64) M {
	n := sl.unexp.pop()
	s.keys.release(sl, h)
	return s.msgs.put(n)
}

// popPosted takes the first receive of sl, the slot of the key hashing to h.
func (s *shard[M, R]) popPosted(sl *slot[M, R], h uint64) R {
	n := sl.posted.pop()
	s.keys.release(sl, h)
	s.nPosted--
	return s.recvs.put(n)
}

// cancel removes k's first posted receive that pick accepts.
func (s *shard[M, R]) cancel(k Key, h uint64, pick func(R) bool) bool {
	sl := s.keys.find(k, h)
	if sl == nil {
		return false
	}
	n := sl.posted.remove(pick)
	if n == nil {
		return false
	}
	s.keys.release(sl, h)
	s.nPosted--
	s.recvs.put(n)
	return true
}

// takeSource appends to out every receive posted for comm and src.
// Keys are collected first because releasing slots moves others.
func (s *shard[M, R]) takeSource(comm uint32, src int32, out []R) []R {
	var keys []Key
	for i := range s.keys.slots {
		sl := &s.keys.slots[i]
		if sl.posted.head != nil && sl.key.Comm == comm && sl.key.Source == src {
			keys = append(keys, sl.key)
		}
	}
	for _, k := range keys {
		h := k.hash()
		sl := s.keys.find(k, h)
		for sl.posted.head != nil {
			out = append(out, s.popPosted(sl, h))
			sl = s.keys.find(k, h)
			if sl == nil {
				break
			}
		}
	}
	return out
}
