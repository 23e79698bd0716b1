package match

import (
	"sync"
	"sync/atomic"
)

// Invariants:
//
// State. Shard s owns the FIFOs of the keys that hash to it: unexpected
// messages (unexp) and exact posted receives (posted), each entry stamped.
// Wildcard receives live in one list, wild, in posting order. Locks (none
// on a serial table, SetSerial, whose calls are ordered anyway) are
// waited for in one order only: shard locks by increasing index, then
// wmu. A wildcard operation that holds wmu may also take shard locks, but
// only with TryLock, which never waits, so it closes no cycle. Exact
// operations lock their key's shard (plus wmu when they must look at
// wild). Wildcard Post and Probe take wmu and lock the shards that hold
// unexpected messages (lockBusy), or, when those are many or one of their
// locks is taken, every shard and then wmu (lockAll); RemoveSource and Len
// lock every shard; Cancel of a wildcard receive locks only wmu.
//
// I1 (no missed match). No stored message matches any stored receive.
// A message can match only exact receives with its own key (same shard)
// and wildcard receives; an exact receive only messages with its key.
// Arrive stores a message only after finding no exact receive for it
// under its shard lock and, per I4, no wildcard one; exact Post stores
// only after finding unexp[k] empty under the shard lock; wildcard Post
// stores only after scanning, per I4, every shard that can hold a
// message, with wmu held from the scan to the store.
//
// I2 (nwild). nwild = len(wild) whenever wmu is free. It changes only
// under wmu; it rises before an append (lockBusy's announcement) or after
// it, and falls only after a removal, so nwild ≥ len(wild) always. So an
// Arrive that reads nwild == 0 knows wild was empty at that moment, and
// the common path never touches wmu.
//
// I3 (stamps order entries by linearization). A stored message's stamp is
// from arrivals, a fetch-add taken under its shard lock; if Arrive a
// finishes before Arrive b starts, a's stamp is lower. A posted exact
// receive's stamp is clock, the count of wildcard receives posted so far,
// read under its shard lock. A wildcard receive's stamp is clock after
// its increment, taken under wmu just before the append. clock is an
// atomic, so every read sees exactly the increments before it. Hence
// wildcard receive w was posted before exact receive e iff w.stamp <=
// e.stamp, and within wild, and within each FIFO, order is posting order.
//
// I4 (announce, then look). Once wildOn is set (before it, every
// wildcard operation uses lockAll), an Arrive that finds no exact receive
// adds one to its shard's nUnexp and then reads nwild; a wildcard operation
// under lockBusy adds one to nwild and then reads every shard's nUnexp.
// Go's atomics are sequentially consistent, so for each such pair at
// least one sees the other's addition. If the Arrive sees nwild > 0 it
// takes wmu, after the wildcard operation is done, and looks at wild
// before storing. If the wildcard operation sees nUnexp > 0 it locks that
// shard, and so waits for the Arrive to finish, or falls back to lockAll.
// A shard it reads as zero holds no stored message then and can get one
// only from an Arrive that waits for wmu. So, while lockBusy holds, the
// shards it locked are all the table's stored messages.
//
// Linearizability. Each operation holds, from its first access to its
// last, every lock guarding what it reads or writes (nwild, clock,
// arrivals and the lock-free reads of nUnexp are atomics, covered by
// I2, I3 and I4). Linearize it at a moment inside that span; for an
// Arrive that stores, at the fetch-add that stamps it; for a wildcard
// Post that stores, at its clock increment; for an exact Post that
// stores, at its read of clock. Then operations sharing a lock are
// ordered as they took it, consistently with real time, stamps follow the
// same order, and I1–I4 make each step choose the entry MPI names: Arrive
// takes the earlier of the head of posted[k] and the first matching wild
// entry (both in posting order, compared by I3); exact Post takes the
// head of unexp[k]; wildcard Post and Probe take the matching FIFO head
// with the least arrival stamp among all stored messages (I4).

// wildRecv is a posted receive with AnySource or AnyTag.
type wildRecv[R any] struct {
	key   Key
	stamp uint64
	r     R
}

// Table matches arriving messages (M) with posted receives (R) by Key, as
// MPI's unexpected and posted queues do, for any number of goroutines.
// Create one with New; the zero Table is not usable.
//
// All methods may be called concurrently from any goroutines. Operations
// are linearizable; see the Invariants at the top of table.go.
type Table[M, R any] struct {
	shards []shard[M, R]
	mask   uint64
	// nwild is the number of posted wildcard receives, plus one for each
	// wildcard operation under lockBusy; read by every exact Arrive (I2,
	// I4).
	nwild atomic.Int64
	// clock counts wildcard receives ever posted (I3); read by every
	// exact Post.
	clock atomic.Uint64
	// wildOn is set by the first wildcard Post or Probe, under lockAll.
	// Before it, every wildcard operation locks the whole table and
	// nUnexp is written plainly; from then on it is written with atomics
	// and wildcard operations may use lockBusy (I4). So a program that
	// never receives from AnySource or AnyTag pays nothing for them.
	wildOn atomic.Bool
	_      [cacheLine]byte
	// arrivals numbers stored messages (I3); written by every Arrive
	// that finds no receive, so it has a line of its own.
	arrivals atomic.Uint64
	_        [cacheLine - 8]byte
	wmu      sync.Mutex
	wild     []wildRecv[R]
	// serial is set by SetSerial: one goroutine at a time uses the table,
	// which then takes no locks.
	serial bool
}

// SetSerial promises that from now on the table's methods are never
// called concurrently — each call happens before the next, as with one
// goroutine, or goroutines that hand the table over through a channel or
// a mutex — and so makes them take no locks: an uncontended lock and
// unlock still cost two locked instructions, a receive's largest cost
// after the matching itself. It must happen before the calls it affects
// (call it before handing the table out) and cannot be undone; a table
// used concurrently after it is corrupt.
func (t *Table[M, R]) SetSerial() { t.serial = true }

// lock and unlock take and release shard s, unless the table is serial.
func (t *Table[M, R]) lock(s *shard[M, R]) {
	if !t.serial {
		s.mu.Lock()
	}
}

func (t *Table[M, R]) unlock(s *shard[M, R]) {
	if !t.serial {
		s.mu.Unlock()
	}
}

// tryLock takes shard s if it is free, unless the table is serial.
func (t *Table[M, R]) tryLock(s *shard[M, R]) bool {
	return t.serial || s.mu.TryLock()
}

// countUnexp adds d to s.nUnexp, with s locked. Until the table's first
// wildcard operation, and on a serial table, no reader can race with it,
// so it skips the locked instruction (wildOn).
func (t *Table[M, R]) countUnexp(s *shard[M, R], d int32) {
	if t.serial || !t.wildOn.Load() {
		s.nUnexp += d
		return
	}
	atomic.AddInt32(&s.nUnexp, d)
}

// popUnexp takes the first message of sl, a slot of s (locked) whose key
// hashes to h, and uncounts it.
func (t *Table[M, R]) popUnexp(s *shard[M, R], sl *slot[M, R], h uint64) M {
	m := s.popUnexp(sl, h)
	t.countUnexp(s, -1)
	return m
}

// lockWild and unlockWild take and release wmu, unless the table is
// serial.
func (t *Table[M, R]) lockWild() {
	if !t.serial {
		t.wmu.Lock()
	}
}

func (t *Table[M, R]) unlockWild() {
	if !t.serial {
		t.wmu.Unlock()
	}
}

// New returns an empty Table. It panics if cfg.Validate fails: a bad
// configuration is a programming error.
func New[M, R any](cfg Config) *Table[M, R] {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	t := &Table[M, R]{shards: make([]shard[M, R], cfg.Shards), mask: uint64(cfg.Shards - 1)}
	for i := range t.shards {
		t.shards[i].init()
	}
	return t
}

// shard returns the shard of the key with hash h: its high bits, as each
// shard's index uses the low ones.
func (t *Table[M, R]) shard(h uint64) *shard[M, R] {
	return &t.shards[h>>32&t.mask]
}

// Arrive offers an incoming message m with the concrete key k. If a posted
// receive matches — the earliest posted among exact and wildcard receives
// that accept k — Arrive removes and returns it, and the caller delivers m
// into it; otherwise m is stored as unexpected for a later Post or Probe.
// A key with a negative source or tag is rejected with ErrBadKey.
//
// Any goroutine may call Arrive. Messages with equal keys are matched in
// the order their Arrive calls take effect, so a caller that needs MPI's
// non-overtaking order must call Arrive for one peer's messages in the
// order they were sent, one after the other.
func (t *Table[M, R]) Arrive(k Key, m M) (r R, matched bool, err error) {
	if err := checkArrival(k); err != nil {
		return r, false, err
	}
	h := k.hash()
	s := t.shard(h)
	t.lock(s)
	r, matched = t.arriveLocked(s, k, h, m)
	t.unlock(s)
	return r, matched, nil
}

// arriveLocked is Arrive with s, the shard of k (whose hash is h), locked.
func (t *Table[M, R]) arriveLocked(s *shard[M, R], k Key, h uint64, m M) (r R, ok bool) {
	sl := s.keys.find(k, h)
	if sl != nil && sl.posted.head != nil {
		return t.takeFrom(s, sl, k, h) // an exact receive: a match either way
	}
	// m is stored unless a wildcard receive takes it: count it, then
	// look (I4).
	t.countUnexp(s, 1)
	if t.nwild.Load() != 0 {
		if r, ok = t.takeWild(k, nil); ok {
			t.countUnexp(s, -1)
			return r, true
		}
	}
	s.pushUnexp(k, h, m, t.arrivals.Add(1))
	return r, false
}

// takeLocked removes the receive an arrival with key k matches, if any,
// with s, the shard of k (whose hash is h), locked.
func (t *Table[M, R]) takeLocked(s *shard[M, R], k Key, h uint64) (r R, ok bool) {
	return t.takeFrom(s, s.keys.find(k, h), k, h)
}

// takeFrom is takeLocked given sl, k's slot in s, or nil.
func (t *Table[M, R]) takeFrom(s *shard[M, R], sl *slot[M, R], k Key, h uint64) (r R, ok bool) {
	var exact *node[R]
	if sl != nil {
		exact = sl.posted.head
	}
	if t.nwild.Load() != 0 {
		if r, ok := t.takeWild(k, exact); ok {
			return r, true
		}
	}
	if exact != nil {
		return s.popPosted(sl, h), true
	}
	return r, false
}

// Take removes and returns the posted receive that an Arrive with key k
// would match now, and stores nothing when there is none. A caller that
// can deliver straight into a receive calls Take first and Arrive only if
// Take found nothing, so that a message that meets its receive is never
// copied aside. Take followed by Arrive is Arrive, provided the caller
// keeps Arrive's rule: calls for one sender's messages one after the
// other. Any goroutine may call Take.
func (t *Table[M, R]) Take(k Key) (r R, ok bool, err error) {
	if err := checkArrival(k); err != nil {
		return r, false, err
	}
	h := k.hash()
	s := t.shard(h)
	t.lock(s)
	r, ok = t.takeLocked(s, k, h)
	t.unlock(s)
	return r, ok, nil
}

// TakeN removes, into out, the receives that len(out) Arrives with key k,
// one after the other, would match now, as far as there are any, and
// returns how many it took: the first of k's exact posted receives, in
// posting order, under one lock. While any wildcard receive is posted it
// takes nothing (the caller goes one by one, with Take). A caller that
// delivers a run of messages with one key calls TakeN first and Arrive for
// those it did not cover, keeping Take's rule. Any goroutine may call it.
func (t *Table[M, R]) TakeN(k Key, out []R) (int, error) {
	if err := checkArrival(k); err != nil {
		return 0, err
	}
	h := k.hash()
	s := t.shard(h)
	t.lock(s)
	defer t.unlock(s)
	if t.nwild.Load() != 0 && t.wildPosted() {
		return 0, nil
	}
	// A wildcard receive posted from now on is later than every receive
	// in s, which is locked (I3): taking them all is what Arrives would do.
	sl := s.keys.find(k, h)
	if sl == nil {
		return 0, nil
	}
	n := 0
	for n < len(out) && sl.posted.head != nil {
		out[n] = s.recvs.put(sl.posted.pop())
		n++
	}
	s.nPosted -= int32(n)
	s.keys.release(sl, h) // once the run is out: release may move slots
	return n, nil
}

// wildPosted reports whether a wildcard receive is posted. nwild alone
// does not say, since it counts wildcard operations in progress too (I4).
func (t *Table[M, R]) wildPosted() bool {
	t.lockWild()
	defer t.unlockWild()
	return len(t.wild) != 0
}

// takeWild removes the first wildcard receive that accepts k if it was
// posted before exact (nil: no exact receive); I3 says how to compare.
func (t *Table[M, R]) takeWild(k Key, exact *node[R]) (r R, ok bool) {
	t.lockWild()
	defer t.unlockWild()
	for i, w := range t.wild {
		if exact != nil && w.stamp > exact.stamp {
			break // wild is in posting order: the rest are later still
		}
		if w.key.Matches(k) {
			t.dropWild(i)
			return w.r, true
		}
	}
	return r, false
}

// Post offers a receive r with key k, which may hold AnySource and AnyTag.
// If an unexpected message matches — the earliest arrived among those k
// accepts — Post removes and returns it, and the caller delivers it into
// r; otherwise r is stored as posted for a later Arrive. A source or tag
// below -1 is rejected with ErrBadKey.
//
// Any goroutine may call Post. Receives that could match the same message
// are matched in the order their Post calls take effect. A wildcard Post
// scans every shard's count of unexpected messages and locks the shards
// holding some, or, when those are many, the whole table; it scans the
// keys of those shards. It is correct under any load and costs little
// more than an exact Post while few messages wait unreceived.
func (t *Table[M, R]) Post(k Key, r R) (m M, matched bool, err error) {
	if err := checkReceive(k); err != nil {
		return m, false, err
	}
	if k.Wild() {
		m, matched = t.postWild(k, r)
		return m, matched, nil
	}
	m, matched = t.PostExact(k, r)
	return m, matched, nil
}

// PostExact is Post for a key without wildcards that the caller has
// already checked (Post would accept it): it skips the checks. Any
// goroutine may call it.
func (t *Table[M, R]) PostExact(k Key, r R) (m M, matched bool) {
	h := k.hash()
	s := t.shard(h)
	t.lock(s)
	if sl := s.keys.add(k, h); sl.unexp.head != nil {
		m, matched = t.popUnexp(s, sl, h), true
	} else {
		s.pushPostedAt(sl, r, t.clock.Load())
	}
	t.unlock(s)
	return m, matched
}

// Shards reports how many shards the table has (Config.Shards).
func (t *Table[M, R]) Shards() int { return len(t.shards) }
