package comm

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Watching sleeping requests. A goroutine blocked in Request.await waits
// on its request's done channel alone, not in a select with its context
// and the world's: a three-way select needs three sudogs, whose
// allocation runs deep enough in the runtime to grow the goroutine's
// stack from 2 to 4 KiB, and a million blocked receivers then need 4 GiB
// of stack. Instead the world keeps its sleeping requests in lists, one
// per context (keyed by its Done channel) with one context.AfterFunc for
// the whole list, and withdraws them when their context ends or the world
// closes, which finishes them, which wakes their owners. A sleep then
// costs a lock and two pointer writes, and no allocation.
//
// The callback that withdraws a request may run concurrently with the
// owner's wake-up, and a pooled request is reused once its owner returns,
// so the two agree through the request's watch phase who touches it: the
// owner, when it wakes, moves the phase from watching to ended; a
// callback claims a request by moving it from watching to firing while it
// takes it out of its list, under the set's lock, then withdraws it and
// marks it fired, and an owner that finds it firing waits for fired
// before it returns. The claim is made under the lock, not later, because
// a request detached but not yet claimed could be woken, returned,
// reused and watched again (phase watching once more) before the
// callback got to it, which would then withdraw the new operation.
//
// Invariants (watchSet.mu guards lists, closed and every request's wlist,
// wnext and wprev): a request is in at most one list, and its wlist says
// which; a list is in lists exactly while it is not empty; once closed is
// set no list is added.

const (
	watchWatching uint32 = iota
	watchEnded
	watchFiring
	watchFired
)

// watchSet is a world's sleeping requests.
type watchSet struct {
	mu     sync.Mutex
	lists  map[<-chan struct{}]*watchList
	closed bool
}

// watchList is the requests sleeping under one context; stop cancels its
// AfterFunc (nil for a context that never ends).
type watchList struct {
	done <-chan struct{}
	head *Request
	stop func() bool
}

// add watches r, whose owner is about to sleep, for the end of ctx and of
// the world; if either has ended, r is withdrawn at once.
func (s *watchSet) add(ctx context.Context, r *Request) {
	r.wphase.Store(watchWatching)
	done := ctx.Done()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		r.fireWatch(ErrClosed)
		return
	}
	l := s.lists[done]
	if l == nil {
		if s.lists == nil {
			s.lists = map[<-chan struct{}]*watchList{}
		}
		l = &watchList{done: done}
		s.lists[done] = l
		if done != nil {
			l.stop = context.AfterFunc(ctx, func() { s.fire(l, ctx.Err()) })
		}
	}
	r.wlist, r.wprev, r.wnext = l, nil, l.head
	if l.head != nil {
		l.head.wprev = r
	}
	l.head = r
	s.mu.Unlock()
}

// remove ends the watch of r once its owner has woken; if a callback is
// withdrawing r, it waits until the callback is done with it.
func (s *watchSet) remove(r *Request) {
	s.mu.Lock()
	if l := r.wlist; l != nil {
		s.unlink(l, r)
	}
	s.mu.Unlock()
	if r.wphase.CompareAndSwap(watchWatching, watchEnded) {
		return
	}
	for r.wphase.Load() != watchFired {
		runtime.Gosched()
	}
}

// unlink takes r out of l, and l out of the set when it empties. s.mu
// must be held.
func (s *watchSet) unlink(l *watchList, r *Request) {
	if r.wprev != nil {
		r.wprev.wnext = r.wnext
	} else {
		l.head = r.wnext
	}
	if r.wnext != nil {
		r.wnext.wprev = r.wprev
	}
	r.wlist, r.wprev, r.wnext = nil, nil, nil
	if l.head == nil {
		delete(s.lists, l.done)
		if l.stop != nil {
			l.stop()
		}
	}
}

// fire withdraws every request of l with err: its context has ended.
func (s *watchSet) fire(l *watchList, err error) {
	s.mu.Lock()
	rs := s.detach(l, nil)
	s.mu.Unlock()
	for _, r := range rs {
		r.fireClaimed(err)
	}
}

// close withdraws every sleeping request with ErrClosed, and every later
// one at once.
func (s *watchSet) close() {
	s.mu.Lock()
	s.closed = true
	var rs []*Request
	for _, l := range s.lists {
		rs = s.detach(l, rs)
	}
	s.mu.Unlock()
	for _, r := range rs {
		r.fireClaimed(ErrClosed)
	}
}

// detach empties l, appending to rs the requests it claims: those whose
// owners have not woken yet. s.mu must be held.
func (s *watchSet) detach(l *watchList, rs []*Request) []*Request {
	for l.head != nil {
		r := l.head
		s.unlink(l, r)
		if r.wphase.CompareAndSwap(watchWatching, watchFiring) {
			rs = append(rs, r)
		}
	}
	return rs
}

// fireWatch withdraws r with err unless its owner has woken first.
func (r *Request) fireWatch(err error) {
	if !r.wphase.CompareAndSwap(watchWatching, watchFiring) {
		return
	}
	r.fireClaimed(err)
}

// fireClaimed withdraws r, which its caller claimed (phase firing), with
// err, and hands it back to its owner.
func (r *Request) fireClaimed(err error) {
	r.withdraw(err)
	r.wphase.Store(watchFired)
}

// watchFields are a Request's links in its world's watchSet.
type watchFields struct {
	wphase       atomic.Uint32
	wlist        *watchList
	wprev, wnext *Request
}
