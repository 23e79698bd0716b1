package tcp

import (
	"context"
	"sync"
)

// Invariants:
//   - frames holds whole encoded frames in the order push admitted them;
//     the writer takes them all at once and writes them in that order, so
//     frames from one goroutine reach the peer in the order it sent them.
//   - bytes is the total length of frames; push admits a frame only when
//     bytes+len ≤ limit or the queue is empty, so one frame of any size
//     always fits and the queue never holds more than limit + one frame.
//   - once err is set it never changes, push fails with it, and the writer
//     exits after taking what is left.

// frameBufMax is the largest frame buffer returned to the pool; bigger ones
// are left to the garbage collector so the pool does not hoard memory.
const frameBufMax = 64 << 10

// frameBuf wraps a buffer so the pool stores a pointer, not a slice
// (which would allocate on every Put).
type frameBuf struct{ b []byte }

var framePool = sync.Pool{New: func() any { return new(frameBuf) }}

func getFrame(n int) *frameBuf {
	f := framePool.Get().(*frameBuf)
	if cap(f.b) < n {
		f.b = make([]byte, 0, max(n, 256))
	}
	f.b = f.b[:0]
	return f
}

func putFrame(f *frameBuf) {
	if cap(f.b) <= frameBufMax {
		framePool.Put(f)
	}
}

// sendQueue is a connection's bounded queue of encoded frames. Any number
// of goroutines may push; only the connection's writer goroutine may take.
type sendQueue struct {
	mu     sync.Mutex
	frames []*frameBuf
	bytes  int
	limit  int
	err    error
	space  chan struct{} // closed when room appears; nil while nobody waits
	wake   chan struct{} // the writer's doorbell, capacity 1
}

func newSendQueue(limit int) *sendQueue {
	return &sendQueue{limit: limit, wake: make(chan struct{}, 1)}
}

// push queues f, waiting while the queue is full. It returns ctx.Err() if
// ctx ends first, or the queue's error once it is closed; f then stays the
// caller's.
func (q *sendQueue) push(ctx context.Context, f *frameBuf) error {
	for {
		q.mu.Lock()
		if q.err != nil {
			err := q.err
			q.mu.Unlock()
			return err
		}
		if q.bytes == 0 || q.bytes+len(f.b) <= q.limit {
			q.admit(f)
			q.mu.Unlock()
			return nil
		}
		if q.space == nil {
			q.space = make(chan struct{})
		}
		space := q.space
		q.mu.Unlock()
		select {
		case <-space:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// tryPush queues f if there is room and reports whether it did.
func (q *sendQueue) tryPush(f *frameBuf) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	ok := q.err == nil && q.bytes+len(f.b) <= q.limit
	if ok {
		q.admit(f)
	}
	return ok
}

// admit appends f and rings the doorbell if the writer may be asleep.
// q.mu must be held.
func (q *sendQueue) admit(f *frameBuf) {
	q.frames = append(q.frames, f)
	q.bytes += len(f.b)
	if len(q.frames) == 1 {
		q.ring()
	}
}

func (q *sendQueue) ring() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// close makes every later push fail with err and wakes everyone. If last
// is not nil it is queued first, beyond the limit, as the final frame.
func (q *sendQueue) close(err error, last *frameBuf) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return
	}
	if last != nil {
		q.frames = append(q.frames, last)
	}
	q.err = err
	q.freeSpace()
	q.ring()
}

// freeSpace wakes the pushers waiting for room. q.mu must be held.
func (q *sendQueue) freeSpace() {
	if q.space != nil {
		close(q.space)
		q.space = nil
	}
}

// take waits for frames and returns all of them, reusing spare's array.
// It returns ok=false once the queue is closed and empty. Only the writer
// may call it.
func (q *sendQueue) take(spare []*frameBuf) (frames []*frameBuf, ok bool) {
	for {
		q.mu.Lock()
		if len(q.frames) > 0 {
			frames, q.frames = q.frames, spare[:0]
			q.bytes = 0
			q.freeSpace()
			q.mu.Unlock()
			return frames, true
		}
		closed := q.err != nil
		q.mu.Unlock()
		if closed {
			return nil, false
		}
		<-q.wake
	}
}

// empty reports whether nothing is queued; the writer flushes only then,
// so frames queued while it was writing share the next write.
func (q *sendQueue) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.frames) == 0
}
