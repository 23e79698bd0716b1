package comm

import (
	"runtime"
	"unsafe"
)

// Completion of a Request without a channel operation on the fast path.
//
// The owner of a request usually finds it finished while it polls the
// transport (Request.spin); only an owner that gives up polling blocks on
// the done channel. So the finisher sends a token only to an owner that
// said it sleeps, by setting the sleeper bit of state while the request was
// pending — one compare-and-swap on each side decides it:
//
//   - sleep: CAS pending -> pending|sleeper. Success: the finisher has not
//     started and will see the bit, so a token will come. Failure: the
//     phase is finishing or done, no token will come; wait for done.
//   - finish: CAS pending(|sleeper) -> finishing(|sleeper), write status
//     and err, store done. If the bit was set, send the token.
//
// The CAS that sets the bit happens after the owner made done, so a
// finisher that sees the bit sees done too.

const (
	statePending   uint32 = 0
	stateFinishing uint32 = 1
	stateDone      uint32 = 2
	statePhase     uint32 = 3 // mask of the phase
	stateSleeper   uint32 = 4 // the owner blocks on done
)

// finish completes r once; it reports whether this call did it.
func (r *Request) finish(st Status, err error) bool {
	var s uint32
	for {
		s = r.state.Load()
		if s&statePhase != statePending {
			return false
		}
		if r.state.CompareAndSwap(s, stateFinishing|s&stateSleeper) {
			break
		}
	}
	r.status, r.err = st, err
	r.state.Store(stateDone)
	if s&stateSleeper != 0 {
		r.done <- struct{}{}
	}
	return true
}

// finishTaken completes r for a caller that is its only possible
// finisher: it took r out of the matching table for an eager message, and
// a withdrawing owner then only flags r (withdrawRecv). One swap then
// publishes status and err and reads the sleeper bit, where finish needs
// a compare-and-swap and a store: the owner's sleep CAS either comes
// first (the swap sees the bit and sends the token) or fails on done.
func (r *Request) finishTaken(st Status, err error) {
	r.status, r.err = st, err
	if r.w.serial {
		// The owner is this goroutine, or one the caller hands the
		// world to later: it never sleeps on done (awaitSerial), so the
		// state needs no swap, and no locked instruction, to publish.
		*(*uint32)(unsafe.Pointer(&r.state)) = stateDone
		return
	}
	if r.state.Swap(stateDone)&stateSleeper != 0 {
		r.done <- struct{}{}
	}
}

// fail completes r with err and an empty status.
func (r *Request) fail(err error) bool {
	return r.finish(Status{Source: r.peer, Tag: r.tag}, err)
}

// finished reports whether r is done; its status and err are then final.
func (r *Request) finished() bool { return r.state.Load() == stateDone }

// sleep announces that the owner is about to block on done; it reports
// false if r is already finishing or done, in which case no token will
// come and sleep has waited, briefly, for done. Only r's owner may call it.
func (r *Request) sleep() bool {
	if r.done == nil {
		r.done = make(chan struct{}, 1)
	}
	if r.state.CompareAndSwap(statePending, statePending|stateSleeper) {
		return true
	}
	for !r.finished() {
		// A finisher is between its CAS and its store: a few
		// instructions, unless it was preempted there.
		runtime.Gosched()
	}
	return false
}
