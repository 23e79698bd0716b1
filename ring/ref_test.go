package ring

import (
	"errors"
	"sync"
)

// refRing is the reference twin of Ring: a mutex and a slice of messages
// with the same capacity rules, written from the specification rather than
// from Ring's code. A message takes max(1, ceil(len/56)) slots, at most
// half the ring; the sender sees room only up to the receiver's last
// publication, which happens whenever it has moved half a ring since the
// previous one.
type refRing struct {
	mu                    sync.Mutex
	n                     int
	head, tail, published int
	q                     [][]byte
}

func newRef(slots int) *refRing { return &refRing{n: slots} }

func refSlots(l int) int { return max(1, (l+SlotPayload-1)/SlotPayload) }

func (q *refRing) TrySend(p []byte) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	k := refSlots(len(p))
	if k > q.n/2 {
		return false, ErrTooLarge
	}
	if q.head+k-q.published > q.n {
		return false, nil
	}
	q.q = append(q.q, append([]byte(nil), p...))
	q.head += k
	return true, nil
}

func (q *refRing) TryRecv(buf []byte) (int, bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.q) == 0 {
		return 0, false, nil
	}
	m := q.q[0]
	q.q = q.q[1:]
	copy(buf, m)
	q.tail += refSlots(len(m))
	if q.tail-q.published >= q.n/2 {
		q.published = q.tail
	}
	if len(m) > len(buf) {
		return len(m), true, ErrTruncated
	}
	return len(m), true, nil
}

// sameErr reports whether two errors are both nil or match one sentinel.
func sameErr(a, b error) bool {
	for _, s := range []error{ErrTooLarge, ErrTruncated, ErrCorrupt, ErrBadRegion} {
		if errors.Is(a, s) != errors.Is(b, s) {
			return false
		}
	}
	return (a == nil) == (b == nil)
}
