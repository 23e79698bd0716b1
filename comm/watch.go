package comm

import (
	"context"
	"runtime"
	"sync/atomic"
)

// Watching a sleeping request. A goroutine blocked in Request.await waits
// on its request's done channel alone, not in a select with its context
// and the world's: a three-way select needs three sudogs, whose
// allocation runs deep enough in the runtime to grow the goroutine's
// stack from 2 to 4 KiB, and a million blocked receivers then need 4 GiB
// of stack. Instead, context.AfterFunc withdraws the request when ctx or
// the world ends, which finishes it, which wakes the owner.
//
// A watcher's callback may run concurrently with the owner's wake-up, and
// a pooled request is reused once its owner returns, so the callback and
// the owner agree through the watcher's phase who touches the request:
// the owner, when it wakes, moves the phase from watching to ended; a
// callback that moves it from watching to firing withdraws the request
// and then marks it fired, and an owner that finds it firing waits for
// fired before it returns.

const (
	watchWatching uint32 = iota
	watchEnded
	watchFiring
	watchFired
)

// watcher is one sleep's registration with the contexts.
type watcher struct {
	r     *Request
	phase atomic.Uint32
	stops [2]func() bool
}

// watch arranges for r to be withdrawn when ctx or r's world ends while
// its owner sleeps; end undoes it.
func (r *Request) watch(ctx context.Context) *watcher {
	s := &watcher{r: r}
	if ctx.Done() != nil {
		s.stops[0] = context.AfterFunc(ctx, func() { s.fire(ctx.Err()) })
	}
	s.stops[1] = context.AfterFunc(r.w.ctx, func() { s.fire(ErrClosed) })
	return s
}

// fire withdraws the request with err unless its owner has woken.
func (s *watcher) fire(err error) {
	if !s.phase.CompareAndSwap(watchWatching, watchFiring) {
		return
	}
	s.r.withdraw(err)
	s.phase.Store(watchFired)
}

// end unregisters the watcher once the owner has woken; if a callback is
// withdrawing the request, it waits until the callback is done with it.
func (s *watcher) end() {
	for _, stop := range s.stops {
		if stop != nil {
			stop()
		}
	}
	if s.phase.CompareAndSwap(watchWatching, watchEnded) {
		return
	}
	for s.phase.Load() != watchFired {
		runtime.Gosched()
	}
}
