package ring

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

// The waiting policy of Send and Recv, in three phases. Polling a line the
// peer has not written hits the local cache and costs a few nanoseconds, so
// each spin is simply one more poll; no channel, mutex or futex is ever
// waited on, because waking a blocked goroutine costs tens of microseconds
// against tens of nanoseconds for a spinning hand-off.
const (
	// SpinIterations is how many times a waiter polls before yielding:
	// tens of microseconds, long enough to cover a peer that is merely
	// busy, short enough to hand the CPU over when oversubscribed.
	SpinIterations = 1 << 14
	// YieldIterations is how many runtime.Gosched calls follow the spins,
	// letting goroutines that share the waiter's P or CPU run.
	YieldIterations = 1 << 8
	// SleepDuration is the pause between polls once spinning and yielding
	// have failed: the peer is descheduled or idle.
	SleepDuration = 50 * time.Microsecond
	// CheckInterval is how many spins pass between context checks; the
	// yield and sleep phases check every step.
	CheckInterval = 1 << 12

	probeAt = 1 << 8
)

// Backoff carries a waiter through the spin, yield and sleep phases. The
// zero value starts spinning; if GOMAXPROCS is 1 no peer can run while the
// waiter spins, so after probeAt spins it starts yielding. A Backoff belongs
// to one goroutine.
type Backoff struct{ n int }

// Wait waits for one step of the policy and reports whether the caller
// should check its context now. Only the Backoff's goroutine may call it.
func (b *Backoff) Wait() (check bool) {
	b.n++
	if b.n < probeAt {
		return false // the first polls cost nothing but the poll: inlined
	}
	return b.slow()
}

// slow is Wait past the first probeAt polls.
func (b *Backoff) slow() bool {
	if b.n == probeAt && runtime.GOMAXPROCS(0) == 1 {
		b.n = SpinIterations // GOMAXPROCS reads a global lock: not per poll
	}
	switch {
	case b.n < SpinIterations:
		return b.n%CheckInterval == 0
	case b.n < SpinIterations+YieldIterations:
		runtime.Gosched()
	default:
		time.Sleep(SleepDuration)
	}
	return true
}

// Send sends p, waiting for room under the Backoff policy. It returns
// ErrTooLarge at once for a message longer than MaxMessage, and ctx.Err()
// unchanged if ctx ends while it waits; ctx is checked only while waiting,
// every CheckInterval spins. It must only be called by the sender.
func (r *Ring) Send(ctx context.Context, p []byte) error {
	if len(p) <= SlotPayload && r.room(1) {
		r.put(p) // the common case: one slot, room known
		return nil
	}
	if ok, err := r.TrySend(p); ok || err != nil {
		return err
	}
	var b Backoff
	for k := slotsFor(len(p)); ; {
		if b.Wait() {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if r.room(k) {
			_, err := r.TrySend(p)
			return err
		}
	}
}

// Recv receives the next message into buf and returns its length, waiting
// under the Backoff policy. Errors are TryRecv's, or ctx.Err() unchanged if
// ctx ends while it waits. It must only be called by the receiver.
//
// Its first probeAt polls are a bare loop over the control word of the
// receiver's position (about one ring round trip between two spinning
// CPUs here: in BenchmarkPingPong's ping-pong about 7 receives in 8 end in
// it), and the value loaded is handed straight to take, so a message that
// arrives meanwhile costs one load of its slot's line and no call but
// take. A control word from neither this lap nor the last (ErrCorrupt) is
// looked for after those polls, by TryRecv.
func (r *Ring) Recv(ctx context.Context, buf []byte) (int, error) {
	t := r.rcv.tail // only this goroutine moves it
	ctl, seq := r.ctl(t), (t+1)&seqMask
	for range probeAt {
		if c := atomic.LoadUint64(ctl); c&seqMask == seq {
			n, _, err := r.take(t, c, buf)
			return n, err
		}
	}
	return r.recvWait(ctx, buf)
}

// recvWait is Recv past its first probeAt polls: the Backoff policy from
// there on, TryRecv at every context check. The Backoff starts as if it had
// counted Recv's polls, so its next Wait is the probeAt-th, where the
// GOMAXPROCS probe happens, and the spin budget is unchanged.
func (r *Ring) recvWait(ctx context.Context, buf []byte) (int, error) {
	b := Backoff{n: probeAt - 1}
	for {
		if n, ok, err := r.TryRecv(buf); ok || err != nil {
			return n, err
		}
		for !r.ready() {
			if b.Wait() {
				if err := ctx.Err(); err != nil {
					return 0, err
				}
				break
			}
		}
	}
}
