package comm

import (
	"context"

	"github.com/plexus-hpc/plexus/internal/wait"
)

// A serialized world (Config.Serialized) is used by one goroutine at a
// time, and receives only inside its calls: its transport is passive
// (sleeper), so no receive goroutine delivers beside the caller, and
// nothing else does either — deferred work waits for the caller's next
// poll instead of a goroutine of its own, and a caller that waits polls
// and then sleeps on the transport (its doorbell), not on a channel that a
// delivery would close. Delivery and the caller's own operations thus
// never overlap, and the world drops the locks that kept them apart: the
// matching table's (match.Table.SetSerial), the free requests' stack's,
// the one-poller flag's, and the transport's own (shm.Config.Passive).
// Each is an uncontended lock and unlock — two locked instructions, each
// waiting for the store buffer to drain — on every receive or poll
// (docs/benchmarks.md has what they cost). A rank that computes without
// calling the world receives nothing meanwhile, as an MPI rank without a
// progress thread; its peers' sends then wait for room in the rings.
//
// Concurrency contract: the caller's. Used from two goroutines at once, a
// serialized world corrupts its tables; the race detector reports it.

// Serialized reports whether the world runs serialized: Config.Serialized
// was set and its transport is passive.
func (w *World) Serialized() bool { return w.serial }

// adoptSerial makes the world serialized if it was asked to be and its
// transport is passive. It runs before the world is handed out (openWorld, or
// join once the routes are known), when nothing uses it yet.
func (w *World) adoptSerial() {
	s, ok := w.t.(sleeper)
	if !w.cfg.Serialized || w.serial || !ok || !s.Passive() {
		return
	}
	w.serial, w.sleeper = true, s
	w.table.SetSerial()
	w.slabs.serial = true
}

// awaitSerial is await in a serialized world: it polls until r finishes
// and sleeps on the transport in between, since no other goroutine would
// finish r. When ctx or the world ends first it withdraws r, as a
// sleeper's watch does, and goes on polling until the withdrawal is done
// (the data of a transfer in progress lands first).
func (r *Request) awaitSerial(ctx context.Context) {
	w := r.w
	withdrawn := false
	for !r.finished() && !r.spin() {
		if !withdrawn {
			switch {
			case ctx.Err() != nil:
				r.withdraw(ctx.Err())
				withdrawn = true
				continue
			case w.ctx.Err() != nil:
				r.withdraw(ErrClosed)
				withdrawn = true
				continue
			}
		}
		r.waiting()
		w.sleepSerial(ctx, r.finished)
	}
}

// sleepSerial sleeps on the transport until something may have arrived
// or ready reports true (see sleeper), then runs the deferred work.
func (w *World) sleepSerial(ctx context.Context, ready func() bool) {
	if w.ctx.Err() == nil && ctx.Err() == nil {
		w.sleeper.Sleep(ctx, ready)
	}
	w.drainPending()
}

// pollSerial polls the transport once in a serialized world's wait and
// runs the deferred work; it reports whether anything was delivered.
func (w *World) pollSerial() bool {
	got := w.poll.Poll(-1)
	w.drainPending()
	return got
}

// pollSerialFor is pollSerial for a caller that waits for what makes
// done report true (a link's next message, say) from peer: with an
// untilPoller the poll stops as soon as it delivered that, without first
// looking at the ring's next slot, whose line the sender is about to
// write — a read there makes the sender's next write fetch the line back.
func (w *World) pollSerialFor(peer int, done interface{ Done() bool }) bool {
	u := w.until
	if u == nil {
		return w.pollSerial()
	}
	got := u.PollUntil(peer, done)
	w.drainPending()
	return got
}

// drainSerial runs, in a serialized world, the work deferred since the
// last poll before a send: a credit to return or a grant to answer then
// leaves ahead of the new frame rather than at the next wait.
func (w *World) drainSerial() {
	if w.serial {
		w.drainPending()
	}
}

// waitSerial is a serialized world's wait for a link or a probe: it polls
// until a poll delivers something or ev has a token (the caller then looks
// again), ctx ends (its error) or the world closes (nil: the caller's next
// try reports it), spinning under the pollers' waiting policy
// (wait.Poller) and then sleeping on the transport between polls.
func (w *World) waitSerial(ctx context.Context, ev <-chan struct{}) error {
	sp := wait.NewWaiter(&wait.Poller)
	for {
		if w.pollSerial() {
			return nil
		}
		select {
		case <-ev:
			return nil
		default:
		}
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case w.ctx.Err() != nil:
			return nil
		}
		switch sp.Next() {
		case wait.Check, wait.Yield:
			w.giveCPU()
		case wait.Sleep:
			w.sleepSerial(ctx, func() bool { return len(ev) > 0 })
		}
	}
}
