package kvbench

import (
	"context"
	"encoding/binary"
	"runtime"
	"sync/atomic"
	"time"
)

// answer tells one client that its request was applied at its replica,
// without a channel on the way: the replica stores the request's number
// and the client polls it, yielding its P to the other clients, and
// parks on wake only after yieldFor. A wake-up through the scheduler
// costs the replica microseconds, a store nanoseconds, and the replica's
// time is what the bench measures.
//
// Concurrency: done is stored by the replica's goroutine (Apply) and
// loaded by the client; parked is stored by the client before its last
// look at done and loaded by the replica after its store, so one of the
// two sees the other (sequentially consistent atomics) and the client
// never sleeps through its answer.
type answer struct {
	done   atomic.Uint64
	parked atomic.Bool
	wake   chan struct{}
	_      [40]byte
}

func newAnswers(n int) []answer {
	as := make([]answer, n)
	for i := range as {
		as[i].wake = make(chan struct{}, 1)
	}
	return as
}

// yieldFor is how long a client yields before it parks when the
// replicas are pinned and fewer than the Ps: they then hold their Ps and
// spin, the clients share the Ps left, and a parked client would be
// woken onto the P of the replica that answered, which never gives it
// up. Otherwise a client yields for its first 63 polls only (tens of
// microseconds) before it parks, leaving the Ps to the replicas.
const yieldFor = time.Millisecond

// answerAt runs on replica id's goroutine only (the single writer of
// the done of its clients). It records, at replica id of a group of n, that the client and
// request named by a 16-byte value were decided, if the client proposes
// there.
func answerAt(as []answer, n, id int, v []byte) {
	if len(v) != 16 {
		return
	}
	c := binary.LittleEndian.Uint64(v)
	if c >= uint64(len(as)) || int(c)%n != id {
		return
	}
	a := &as[c]
	seq := binary.LittleEndian.Uint64(v[8:])
	if seq <= a.done.Load() {
		return // a repeat of an old request is no answer
	}
	a.done.Store(seq)
	if a.parked.Load() {
		select {
		case a.wake <- struct{}{}:
		default:
		}
	}
}

// await waits until request seq was applied, yielding for up to yield
// (and at least 63 polls), and reports whether it was before ctx ended
// or deadline passed.
func (a *answer) await(ctx context.Context, seq uint64, yield time.Duration, deadline time.Time) bool {
	start := time.Now()
	for polls := 0; a.done.Load() < seq; polls++ {
		if polls%64 != 63 {
			runtime.Gosched()
			continue
		}
		now := time.Now()
		if ctx.Err() != nil || !now.Before(deadline) {
			return false
		}
		if now.Sub(start) < yield {
			runtime.Gosched()
			continue
		}
		if !a.park(ctx, seq, deadline) {
			return a.done.Load() >= seq
		}
	}
	return true
}

// park blocks until the replica stores seq, ctx ends or deadline
// passes, and reports false for the latter two. It may also return true
// on a wake-up meant for an earlier request: callers look at done again.
func (a *answer) park(ctx context.Context, seq uint64, deadline time.Time) bool {
	a.parked.Store(true)
	defer a.parked.Store(false)
	if a.done.Load() >= seq {
		return true
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-a.wake:
		return true
	case <-ctx.Done():
		return false
	case <-t.C:
		return false
	}
}
