package match

import (
	"slices"
	"sync"
)

// Ref is the reference twin of Table: the same operations and matching
// rules, kept as plainly as possible — one mutex and two slices in arrival
// and posting order, searched from the front. Tests drive both with the
// same operations and compare; benchmarks measure what sharding buys.
//
// All methods may be called concurrently; each runs under the one mutex.
// The zero Ref is empty and ready to use.
type Ref[M, R any] struct {
	mu     sync.Mutex
	unexp  []refEntry[M]
	posted []refEntry[R]
}

type refEntry[T any] struct {
	key Key
	val T
}

// NewRef returns an empty Ref.
func NewRef[M, R any]() *Ref[M, R] { return new(Ref[M, R]) }

// Arrive is Table.Arrive: take the earliest posted receive accepting k,
// or store m.
func (t *Ref[M, R]) Arrive(k Key, m M) (r R, matched bool, err error) {
	if err := checkArrival(k); err != nil {
		return r, false, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, matched = t.take(k); !matched {
		t.unexp = append(t.unexp, refEntry[M]{k, m})
	}
	return r, matched, nil
}

// Take is Table.Take: take the earliest posted receive accepting k, or
// nothing.
func (t *Ref[M, R]) Take(k Key) (r R, matched bool, err error) {
	if err := checkArrival(k); err != nil {
		return r, false, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	r, matched = t.take(k)
	return r, matched, nil
}

// TakeN is Table.TakeN: nothing while a wildcard receive is posted, else
// the earliest posted receives accepting k, up to len(out).
func (t *Ref[M, R]) TakeN(k Key, out []R) (int, error) {
	if err := checkArrival(k); err != nil {
		return 0, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if slices.ContainsFunc(t.posted, func(e refEntry[R]) bool { return e.key.Wild() }) {
		return 0, nil
	}
	n := 0
	for n < len(out) {
		r, ok := t.take(k)
		if !ok {
			break
		}
		out[n] = r
		n++
	}
	return n, nil
}

// take removes the earliest posted receive accepting k, if any. The
// caller holds t.mu.
func (t *Ref[M, R]) take(k Key) (r R, ok bool) {
	i := slices.IndexFunc(t.posted, func(e refEntry[R]) bool { return e.key.Matches(k) })
	if i < 0 {
		return r, false
	}
	r = t.posted[i].val
	t.posted = slices.Delete(t.posted, i, i+1)
	return r, true
}

// Post is Table.Post: take the earliest unexpected message k accepts, or
// store r.
func (t *Ref[M, R]) Post(k Key, r R) (m M, matched bool, err error) {
	if err := checkReceive(k); err != nil {
		return m, false, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	i := t.find(k)
	if i < 0 {
		t.posted = append(t.posted, refEntry[R]{k, r})
		return m, false, nil
	}
	m = t.unexp[i].val
	t.unexp = slices.Delete(t.unexp, i, i+1)
	return m, true, nil
}

// find returns the index of the earliest unexpected message k accepts.
func (t *Ref[M, R]) find(k Key) int {
	return slices.IndexFunc(t.unexp, func(e refEntry[M]) bool { return k.Matches(e.key) })
}

// Probe is Table.Probe.
func (t *Ref[M, R]) Probe(k Key) (m M, key Key, ok bool) {
	if checkReceive(k) != nil {
		return m, k, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := t.find(k); i >= 0 {
		return t.unexp[i].val, t.unexp[i].key, true
	}
	return m, k, false
}

// Cancel is Table.Cancel.
func (t *Ref[M, R]) Cancel(k Key, match func(R) bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := slices.IndexFunc(t.posted, func(e refEntry[R]) bool { return e.key == k && match(e.val) })
	if i >= 0 {
		t.posted = slices.Delete(t.posted, i, i+1)
	}
	return i >= 0
}

// RemoveSource is Table.RemoveSource; Ref returns the receives in posting
// order.
func (t *Ref[M, R]) RemoveSource(comm uint32, src int32) (posted []R) {
	if src < AnySource {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.posted = slices.DeleteFunc(t.posted, func(e refEntry[R]) bool {
		if e.key.Comm == comm && e.key.Source == src {
			posted = append(posted, e.val)
			return true
		}
		return false
	})
	return posted
}

// Len is Table.Len.
func (t *Ref[M, R]) Len() (unexpected, posted int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.unexp), len(t.posted)
}
