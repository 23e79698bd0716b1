package comm

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/internal/wait"
)

// Status describes a received (or probed) message.
type Status struct {
	// Source is the rank that sent the message.
	Source int
	// Tag is the message's tag.
	Tag int
	// Len is the message's full length, even when it was truncated.
	Len int
}

// Request is an operation in flight, returned by Isend and Irecv.
//
// Concurrency contract: a Request belongs to the goroutine that started it,
// which may call Wait and Test; the world's delivery path completes it from
// another goroutine. Exactly one finish wins; it writes status and err,
// then publishes them by storing stateDone, and never touches the request
// again — except to send one token on done if the owner announced, by
// the sleeper bit, that it blocks on done (Request.finish).
//
// Invariants: the phase goes pending -> finishing -> done and never back
// until a pooled request is reset; the sleeper bit is set only while
// pending, by the owner, after done exists; done holds at most one token,
// sent only when the sleeper bit was set; buf is written only by the
// goroutine that holds the request's match (the delivery path for eager
// data, the peer's lock for rendezvous data), and never after finish.
type Request struct {
	// What every request uses, first: the eager paths touch only these.
	w       *World
	peer    int // destination, or the source asked for (may be AnySource)
	tag     int
	buf     []byte
	state   atomic.Uint32 // phase | sleeper bit
	rdvPeer atomic.Int32  // rendezvous receive: src+1 once registered
	done    chan struct{} // made by the owner before it first sleeps
	status  Status
	err     error
	send    bool
	pooled  bool
	shared  bool        // a completed send handed to many Isends (sentCache)
	freed   bool        // freed and not handed out again (Free)
	offered bool        // rendezvous send: its RTS offered buf to be pulled (offer)
	abort   atomic.Bool // the owner gave up with cancelErr; set after it

	// Rendezvous and withdrawal.
	seq       uint64 // rendezvous transfer id (the sender's)
	want      int    // rendezvous receive: bytes granted
	got       int    // rendezvous receive: bytes arrived; guarded by the peer's lock
	msgLen    int    // rendezvous receive: the message's full length
	src       int    // rendezvous receive: the actual source
	msgTag    int    // rendezvous receive: the actual tag
	cancelErr error

	watchFields // while the owner sleeps (watchSet)
}

var reqPool = sync.Pool{New: func() any { return &Request{pooled: true} }}

// newRequest returns a request for internal use by a blocking call; it goes
// back to the pool after waitPooled.
func (w *World) newRequest() *Request {
	if r := w.spare; r != nil { // a serialized world's one blocking call at a time
		w.spare = nil
		return r
	}
	r := reqPool.Get().(*Request)
	r.w = w
	return r
}

// release resets r and returns it to the pool. Only waitPooled calls it,
// after await, which consumed the token if one was sent, so no finisher
// still refers to r.
func (r *Request) release() {
	w, done := r.w, r.done
	*r = Request{done: done, pooled: true}
	if w.serial && w.spare == nil {
		r.w, w.spare = w, r // kept for the next blocking call, no pool
		return
	}
	reqPool.Put(r)
}

// Test reports whether r has completed, and if so its status and error.
// It never blocks. In a serialized world, where messages arrive only in
// its calls, it polls the transport once first, as MPI_Test does.
func (r *Request) Test() (Status, bool, error) {
	if !r.finished() && r.w.serial {
		r.w.pollSerial()
	}
	if !r.finished() {
		r.checkLive()
		if r.waiting(); !r.finished() {
			return Status{}, false, nil
		}
	}
	return r.status, true, r.err
}

// Wait blocks until r completes or ctx ends. When ctx ends first, Wait
// withdraws the operation if it can and returns ctx.Err(); if the data is
// already moving it waits for that to finish, so a returned Wait never
// leaves the world touching r's buffer.
func (r *Request) Wait(ctx context.Context) (Status, error) {
	if r.finished() {
		return r.status, r.err
	}
	r.checkLive()
	r.await(ctx)
	return r.status, r.err
}

// waitPooled is Wait for a pooled request: it always consumes the token,
// then recycles r.
func (r *Request) waitPooled(ctx context.Context) (Status, error) {
	r.await(ctx)
	st, err := r.status, r.err
	r.release()
	return st, err
}

// await blocks until r is finished, withdrawing it when ctx or the world
// ends first. It consumes the done token if one was sent.
func (r *Request) await(ctx context.Context) {
	if r.finished() {
		return
	}
	if r.w.serial {
		r.awaitSerial(ctx)
		return
	}
	if r.spin() || !r.sleep() {
		return
	}
	r.waiting()
	r.w.sleepers.Add(1)
	r.w.watch.add(ctx, r)
	<-r.done
	r.w.watch.remove(r)
	r.w.sleepers.Add(-1)
}

// A waiting goroutine polls the transport under the waiting policy for
// pollers (wait.Poller) before it sleeps. Waking a sleeping goroutine when
// its message arrives costs a wake-up of the transport's reader and then a
// wake-up of the waiter, tens of microseconds on a small VM; a waiter that
// reads the transport itself pays neither (as MPI libraries that spin do).
// Polling burns a core, so it is bounded by the policy's spin budget: a
// rank waits at most that long awake, then sleeps until woken, and only
// one goroutine per world polls.

// bytesAhead estimates the data a Waitall waits for while it waits for the
// last of reqs: as much again as the last one's for every other request,
// as in a window of equal messages (counting them one by one cost the
// message rate of small windows about 4%). It lengthens that wait's spin
// (World.waitingBytes); with the last request's bytes alone, a window of
// large transfers outlasted the spin: the waiter went to sleep
// mid-window, and each answer that then woke it cost its peer a futex
// wake, tens of microseconds, in the middle of its own work where a FIN
// costs well under one (docs/benchmarks.md, section "Shared memory on a
// new host", 2026-11-25). Below minAhead it is 0, and the world's shared
// counter is left alone.
func bytesAhead(reqs []*Request) int64 {
	n := int64(len(reqs)-1) * int64(len(reqs[len(reqs)-1].buf))
	if n < minAhead {
		return 0
	}
	return n
}

// minAhead is the least data ahead that lengthens a Waitall's spin: less
// would add under a tenth of the policy's spin budget.
const minAhead = 10 << 10

// spinPerByte lengthens the spin of a large operation, whose data takes
// time to move however soon the peer answers: a nanosecond per byte (the
// time at 1 GB/s), so a 1 MiB transfer is waited for awake.
const spinPerByte = time.Nanosecond

// spin polls the transport for r's peer until r finishes or its budget
// (the policy's spin, plus spinPerByte for each byte of r's buffer) has
// passed; it reports whether r finished. It returns false at once if the
// transport cannot be polled or another goroutine is polling. While it
// polls it also runs the work the delivery path deferred (World.later),
// which may wait on the network.
//
// The policy reads the clock, and the loop yields, only at the policy's
// checks: both cost more than a poll (a clock read tens of nanoseconds on
// a VM, a yield with nothing else to run hundreds), and whatever the loop
// is doing when the message lands delays it.
func (r *Request) spin() bool {
	p := r.w.poll
	if p == nil || r.w.sleepers.Load() > maxSpinSleepers || !r.w.takePoller() {
		return false
	}
	defer r.w.stopSpinning()
	pol := wait.Poller
	pol.Spin += time.Duration(len(r.buf)+int(r.w.waitingBytes.Load())) * spinPerByte
	w := wait.NewWaiter(&pol)
	for !r.finished() {
		got := r.poll(p)
		r.w.drainPending() // what the frames asked for: a grant, a push (World.later)
		if got {
			continue
		}
		switch w.Next() {
		case wait.Poll, wait.Pause:
			continue
		case wait.Sleep:
			p.PollDone(r.peer)
			return r.finished()
		}
		// Goroutines this one made ready (a transport's writer, a
		// drainer of deferred work) may wait in this P's queue; let them
		// run. On a crowded host the thread's CPU goes too.
		runtime.Gosched()
		r.w.giveCPU()
	}
	return true
}

// poll polls p for r's peer, returning as soon as r has finished if the
// transport can (untilPoller) and no other goroutine of the world sleeps
// waiting: the frames for those are better delivered by this poll, on its
// way, than left for the transport's receive goroutine, which stands aside
// while anyone polls: with many goroutines waiting, returning early
// regardless more than doubled their latency (docs/benchmarks.md, "Bundles,
// queued sends and a two-member allreduce" in section "Shared memory: a
// leaner receive path", 2026-11-22).
func (r *Request) poll(p poller) bool {
	if u := r.w.until; u != nil && r.w.sleepers.Load() == 0 {
		return u.PollUntil(r.peer, (*finishedReq)(r))
	}
	return p.Poll(r.peer)
}

// finishedReq is a Request as the done argument of PollUntil.
type finishedReq Request

// Done reports whether the request has finished.
func (f *finishedReq) Done() bool { return (*Request)(f).finished() }

// giveCPU yields the thread's CPU on a crowded host, perhaps to the rank
// this one waits for; a polling wait calls it when polls find nothing
// (here and in Link.Progress), as Open MPI's oversubscribed ranks do.
func (w *World) giveCPU() {
	if w.crowded {
		osYield()
	}
}

// maxSpinSleepers is how many goroutines may sleep in await before the
// waiters stop polling and leave delivery to the transport's receive
// goroutine. The delivery path is deep: a goroutine that polls grows its
// stack (to 4 or 8 KiB), and the runtime keeps it grown, so with a crowd
// of waiters, which take turns at polling, every one of them would end up
// with a big stack — a million receivers over shared memory then needed
// 4.4-4.9 GiB instead of about half. A crowd waits for its messages
// anyway; its latency is the transport's, not one poller's.
const maxSpinSleepers = 1024

// withdraw tries to take r back from wherever it waits, finishing it with
// err; otherwise it flags r so that the delivery path finishes it soon.
func (r *Request) withdraw(err error) {
	if r.send {
		r.w.withdrawSend(r, err)
		return
	}
	r.w.withdrawRecv(r, err)
}

// Waitall waits for every request and returns their statuses in order,
// with the requests' errors joined. A nil entry is skipped, as MPI skips
// MPI_REQUEST_NULL: its status is the zero Status and it adds no error.
func Waitall(ctx context.Context, reqs ...*Request) ([]Status, error) {
	sts := make([]Status, len(reqs))
	return sts, WaitallInto(ctx, sts, reqs...)
}

// WaitallInto is Waitall writing the statuses into sts, which must be nil
// (the statuses are not wanted, as with MPI_STATUSES_IGNORE) or as long
// as reqs; it allocates nothing unless a request fails. Nil entries are
// skipped as in Waitall.
func WaitallInto(ctx context.Context, sts []Status, reqs ...*Request) error {
	if sts != nil && len(sts) != len(reqs) {
		return fmt.Errorf("comm: WaitallInto: %d statuses for %d requests", len(sts), len(reqs))
	}
	if n := lastReq(reqs); n > 0 {
		waitLast(ctx, reqs[:n])
	}
	var errs []error
	for i, r := range reqs {
		if r == nil {
			if sts != nil {
				sts[i] = Status{}
			}
			continue
		}
		if !r.finished() {
			r.Wait(ctx)
		} else {
			r.checkLive()
		}
		if sts != nil {
			sts[i] = r.status
		}
		if r.err != nil {
			errs = append(errs, r.err)
		}
	}
	return errors.Join(errs...)
}

// lastReq returns the length of reqs without its trailing nil entries.
func lastReq(reqs []*Request) int {
	n := len(reqs)
	for n > 0 && reqs[n-1] == nil {
		n--
	}
	return n
}

// waitLast waits for the last request of reqs, which is not nil, first:
// a poller that stops as soon as the request it waits for is done
// (untilPoller) then takes in the frames of all the others on its way,
// rather than returning after each; the others are mostly done by then,
// and WaitallInto's pass waits for any that are not.
func waitLast(ctx context.Context, reqs []*Request) {
	last := reqs[len(reqs)-1]
	w := last.w
	if w == nil {
		last.Wait(ctx)
		return
	}
	w.flushQueued() // before looking: the rank is about to wait
	if w.serial {
		// A serialized world receives only in its calls, and a window
		// of complete eager sends would not wait: one poll takes in
		// the credit and answers that came meanwhile.
		w.pollSerial()
	}
	ahead := bytesAhead(reqs)
	if ahead > 0 {
		w.waitingBytes.Add(ahead)
	}
	last.Wait(ctx)
	if ahead > 0 {
		w.waitingBytes.Add(-ahead)
	}
}
