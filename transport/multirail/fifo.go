package multirail

// fifo is a first-in, first-out list whose head moves rather than its
// slice, so that the array is reused: the inbox of messages received and
// each rail's chunks pending acknowledgement (pending.go) are both one.
// Its items are items[head:]. Not safe for concurrent use.
type fifo[T any] struct {
	items []T
	head  int
}

// push adds v at the end.
func (f *fifo[T]) push(v T) { f.items = append(f.items, v) }

// len is the number of items.
func (f *fifo[T]) len() int { return len(f.items) - f.head }

// front is the oldest item, the zero T if none.
func (f *fifo[T]) front() T {
	var zero T
	if f.head == len(f.items) {
		return zero
	}
	return f.items[f.head]
}

// pop removes and returns the oldest item; the list must not be empty.
func (f *fifo[T]) pop() T {
	var zero T
	v := f.items[f.head]
	f.items[f.head] = zero
	switch f.head++; {
	case f.head == len(f.items):
		f.items, f.head = f.items[:0], 0
	case f.head >= 64 && 2*f.head >= len(f.items):
		// Never empty (a stream, a receiver that never catches up): move
		// the rest down, so that the array does not grow without end
		// (amortised O(1) a pop).
		n := copy(f.items, f.items[f.head:])
		clear(f.items[n:])
		f.items, f.head = f.items[:n], 0
	}
	return v
}

// all is the items, oldest first, valid until the next change.
func (f *fifo[T]) all() []T { return f.items[f.head:] }

// takeAll removes and returns every item, oldest first.
func (f *fifo[T]) takeAll() []T {
	vs := f.items[f.head:]
	*f = fifo[T]{}
	return vs
}
