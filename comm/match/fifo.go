package match

// Per-key FIFOs of stamped entries and the free lists that recycle their
// nodes. Every function here runs with the owning shard's lock held.

// maxFree caps each shard's free lists, so a burst of a million entries
// does not stay cached after it drains; steady traffic below it allocates
// nothing.
const maxFree = 64

// node is one queued message or receive.
type node[T any] struct {
	next *node[T]
	// stamp orders entries across keys: the arrival number for a message,
	// the wildcard clock at posting for a receive (see table.go).
	stamp uint64
	val   T
}

// fifo is a queue of nodes; the zero fifo is empty.
type fifo[T any] struct {
	head, tail *node[T]
}

func (q *fifo[T]) push(n *node[T]) {
	if q.tail == nil {
		q.head = n
	} else {
		q.tail.next = n
	}
	q.tail = n
}

// pop unlinks the head, which must exist.
func (q *fifo[T]) pop() *node[T] {
	n := q.head
	q.head = n.next
	if q.head == nil {
		q.tail = nil
	}
	return n
}

// remove unlinks the first node, in FIFO order, whose value pick accepts.
func (q *fifo[T]) remove(pick func(T) bool) *node[T] {
	var prev *node[T]
	for n := q.head; n != nil; prev, n = n, n.next {
		if !pick(n.val) {
			continue
		}
		if prev == nil {
			q.head = n.next
		} else {
			prev.next = n.next
		}
		if q.tail == n {
			q.tail = prev
		}
		return n
	}
	return nil
}

// pool is a bounded free list of nodes.
type pool[T any] struct {
	free *node[T]
	n    int32
}

// get returns a cleared node holding v and stamp.
func (p *pool[T]) get(v T, stamp uint64) *node[T] {
	n := p.free
	if n == nil {
		n = new(node[T])
	} else {
		p.free = n.next
		p.n--
	}
	*n = node[T]{stamp: stamp, val: v}
	return n
}

// put returns n's value and keeps n for reuse, cleared so a cached node
// keeps no message or receive alive.
func (p *pool[T]) put(n *node[T]) T {
	v := n.val
	if p.n < maxFree {
		*n = node[T]{next: p.free}
		p.free = n
		p.n++
	}
	return v
}
