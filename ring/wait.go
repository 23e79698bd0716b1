package ring

import (
	"context"
	"runtime"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/internal/wait"
)

// Send and Recv wait under Plexus's one waiting policy (internal/wait):
// poll, pause, yield, then nap. Polling a line the peer has not written
// hits the local cache and costs a few nanoseconds; no channel, mutex or
// futex is ever waited on, because a ring may join two processes, and
// waking a blocked goroutine costs tens of microseconds against tens of
// nanoseconds for a spinning hand-off. Nobody can wake a ring's waiter, so
// its Sleep phase is a nap (wait.Nap).

// probeAt is how many bare polls of the control word Recv makes before it
// waits under the policy.
const probeAt = 1 << 8

// Backoff carries a waiter through the policy's phases: wait.Owned, or
// wait.Shared when GOMAXPROCS is 1 and no peer can run while the waiter
// spins. Its zero value is ready to use. A Backoff belongs to one
// goroutine.
type Backoff struct{ w wait.Waiter }

// Wait waits for one step of the policy and reports whether the caller
// should check its context now. Only the Backoff's goroutine may call it.
func (b *Backoff) Wait() (check bool) {
	if b.w.Policy() == nil {
		b.w = wait.NewWaiter(policy()) // GOMAXPROCS reads a global lock: once per wait
	}
	switch b.w.Idle() {
	case wait.Poll, wait.Pause:
		return false
	case wait.Sleep:
		wait.Nap()
	}
	return true
}

// policy returns the waiting policy of this process's ring ends.
func policy() *wait.Policy {
	if runtime.GOMAXPROCS(0) == 1 {
		return &wait.Shared
	}
	return &wait.Owned
}

// Send sends p, waiting for room under the Backoff policy. It returns
// ErrTooLarge at once for a message longer than MaxMessage, and ctx.Err()
// unchanged if ctx ends while it waits; ctx is checked only while waiting,
// at the policy's checks. It must only be called by the sender.
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
// there on, TryRecv at every context check.
func (r *Ring) recvWait(ctx context.Context, buf []byte) (int, error) {
	var b Backoff
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
