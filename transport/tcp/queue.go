package tcp

import (
	"context"
	"slices"
	"sync"
)

// Invariants:
//   - frames holds encoded frames in the order push admitted them (a
//     pushFront, the rest of a partly written frame, comes first); they
//     are taken all at once, only under the connection's wmu, and written
//     in that order, so frames from one goroutine reach the peer in the
//     order it sent them.
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

// wait blocks until the doorbell rings: frames were queued to an empty
// queue, or the queue closed. Only the writer may call it.
func (q *sendQueue) wait() { <-q.wake }

// take returns all queued frames, reusing spare's array, and whether the
// queue is closed. The caller must hold the connection's wmu, so that
// nobody writes directly while taken frames are still on their way.
func (q *sendQueue) take(spare []*frameBuf) (frames []*frameBuf, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.frames) == 0 {
		return nil, q.err != nil
	}
	frames, q.frames = q.frames, spare[:0]
	q.bytes = 0
	q.freeSpace()
	return frames, q.err != nil
}

// pushFront queues f before everything else, beyond the limit and even
// when the queue is closed: f is the rest of a frame already partly
// written, and the bytes queued after it must follow it. The caller must
// hold the connection's wmu.
func (q *sendQueue) pushFront(f *frameBuf) { q.pushFrontAll([]*frameBuf{f}) }

// pushFrontAll is pushFront for frames taken but not (all) written, in
// their order; the first may be the rest of a partly written frame.
func (q *sendQueue) pushFrontAll(fs []*frameBuf) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.frames = slices.Concat(fs, q.frames) // a new array: fs may be reused
	for _, f := range fs {
		q.bytes += len(f.b)
	}
	q.ring()
}

// pending reports whether frames are queued.
func (q *sendQueue) pending() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.frames) > 0
}

// idle reports whether nothing is queued and the queue is open, so that
// a frame may be written directly; the caller must hold the connection's
// wmu for the answer to stay true.
func (q *sendQueue) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.frames) == 0 && q.err == nil
}

// open reports whether the queue still takes frames.
func (q *sendQueue) open() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err == nil
}
