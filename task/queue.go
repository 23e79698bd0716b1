package task

// deque is a double-ended queue of tasks. The pool's mutex guards it:
// it is not safe for concurrent use on its own.
//
// Invariants: items live in buf[head:]; buf[:head] holds nils, so that
// popped tasks are not kept alive.
type deque struct {
	buf  []*item
	head int
}

func (q *deque) len() int { return len(q.buf) - q.head }

func (q *deque) pushBack(it *item) { q.buf = append(q.buf, it) }

// front returns the oldest item without taking it, or nil.
func (q *deque) front() *item {
	if q.len() == 0 {
		return nil
	}
	return q.buf[q.head]
}

// popFront takes the oldest item, or nil.
func (q *deque) popFront() *item {
	if q.len() == 0 {
		return nil
	}
	it := q.buf[q.head]
	q.buf[q.head] = nil
	q.head++
	q.compact()
	return it
}

// popBack takes the newest item, or nil.
func (q *deque) popBack() *item {
	if q.len() == 0 {
		return nil
	}
	it := q.buf[len(q.buf)-1]
	q.buf[len(q.buf)-1] = nil
	q.buf = q.buf[:len(q.buf)-1]
	q.compact()
	return it
}

// compact moves the items to the start of buf once the popped prefix
// is at least half of it, so a queue used as FIFO does not grow for ever.
func (q *deque) compact() {
	if q.len() == 0 {
		q.buf, q.head = q.buf[:0], 0
		return
	}
	if q.head < 64 || q.head < len(q.buf)/2 {
		return
	}
	n := copy(q.buf, q.buf[q.head:])
	clear(q.buf[n:])
	q.buf, q.head = q.buf[:n], 0
}
