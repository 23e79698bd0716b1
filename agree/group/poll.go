package group

import (
	"context"
	"fmt"
	"time"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/agree"
	"github.com/plexus-hpc/plexus/internal/wait"
	"github.com/plexus-hpc/plexus/ring"
)

// A replica on a Team runs one loop that does everything a decision
// needs on its own goroutine: it polls its links, relays tree frames,
// steps the messages, takes calls and ticks, and sends what the node
// returns. A hand-off through a channel to a goroutine that sleeps costs
// microseconds (the scheduler's wake-up), a decision a few ring sends,
// so the loop spins while it has work and sleeps only when idle, on a
// bell its senders ring (member's Concurrency note).

// pollBurst bounds the frames taken from one link per sweep, so that one
// busy link does not starve the others.
const pollBurst = 64

// checkEvery is how many busy sweeps pass between checks of the context.
const checkEvery = 1024

// runTeam is Run for a replica on a Team.
func (r *Replica) runTeam(ctx context.Context, n teamNet) error {
	t, m := n.t, n.t.members[n.id]
	defer m.stopped.Store(true)
	if t.cfg.Pin {
		unpin, err := affinity.Pin(t.cpus[n.id])
		if err != nil {
			return fmt.Errorf("%w: pinning replica %d: %w", ErrConfig, n.id, err)
		}
		defer unpin()
	}
	ticks, stop := r.ticker()
	defer stop()
	var w wait.Waiter
	if t.policy != nil {
		w = wait.NewWaiter(t.policy)
	}
	r.load.start(time.Now(), monotonic())
	defer r.load.idle()
	for {
		r.load.sweep()
		if r.sweep(ctx, t, m, ticks) {
			r.load.busy()
			w.Restart()
			if r.sweeps%checkEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		r.load.idle()
		if err := r.wait(ctx, &w, t, m, ticks); err != nil {
			return err
		}
	}
}

// localEvery is how many sweeps pass between looks at the replica's
// ticker: a tick comes every few milliseconds, and a non-blocking
// receive on a ticker's channel costs some twenty times one on a plain
// channel (the runtime checks the timer), a cost every sweep would pay
// for nothing. The inbox is looked at every sweep: it carries the frames
// too long for a link (catch-up replies, bursts of resent proposals),
// and one left to fill drops them.
const localEvery = 16

// sweep does one round of the replica's work and reports whether it
// found any; under a profile (probe) its parts are timed.
func (r *Replica) sweep(ctx context.Context, t *Team, m *member, ticks <-chan time.Time) bool {
	r.sweeps++
	r.prof.begin()
	busy := t.flushBacklog(m)
	r.prof.enter(phaseLinks)
	busy = t.poll(m) || busy
	r.prof.enter(phaseIntake)
	busy = r.pollLocal(ticks, r.sweeps%localEvery == 0) || busy
	r.flush(ctx)
	r.prof.end(busy)
	return busy
}

// wait spends one idle round under the team's policy, or sleeps at once
// when the team has none.
func (r *Replica) wait(ctx context.Context, w *wait.Waiter, t *Team, m *member, ticks <-chan time.Time) error {
	if t.policy == nil {
		return r.sleep(ctx, t, m, ticks)
	}
	switch w.Idle() {
	case wait.Check, wait.Yield:
		return ctx.Err()
	case wait.Sleep:
		w.Restart()
		return r.sleep(ctx, t, m, ticks)
	}
	return nil
}

// sleep blocks until a frame, a call, a tick or the end of ctx. It
// announces itself (asleep) before its last look at the links, so a
// sender that wrote after that look rings the bell.
func (r *Replica) sleep(ctx context.Context, t *Team, m *member, ticks <-chan time.Time) error {
	m.asleep.Store(true)
	defer m.asleep.Store(false)
	if t.pending(m) {
		return nil
	}
	r.load.sleeps.Add(1)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-m.bell:
	case msg := <-r.inbox:
		r.step(&msg)
	case f := <-r.calls:
		f(r.node)
	case <-ticks:
		r.tick()
	}
	return nil
}

// pollLocal takes what waits in the replica's inbox and calls and, when
// tick is set, a tick.
func (r *Replica) pollLocal(ticks <-chan time.Time, tick bool) bool {
	busy := false
	for range pollBurst {
		if !r.takeInbox() {
			break
		}
		busy = true
	}
	for range pollBurst {
		if !r.takeCall() {
			break
		}
		busy = true
	}
	if !tick {
		return busy
	}
	select {
	case <-ticks:
		r.tick()
		busy = true
	default:
	}
	return busy
}

func (r *Replica) takeInbox() bool {
	select {
	case m := <-r.inbox:
		r.step(&m)
		return true
	default:
		return false
	}
}

func (r *Replica) takeCall() bool {
	select {
	case f := <-r.calls:
		f(r.node)
		return true
	default:
		return false
	}
}

// poll steps the frames waiting on m's links, relaying tree frames to
// m's children first, and reports whether there were any.
func (t *Team) poll(m *member) bool {
	busy := false
	for _, in := range m.in {
		if in == nil {
			continue
		}
		for range pollBurst {
			if !t.take(m, in) {
				break
			}
			busy = true
		}
	}
	return busy
}

// take handles the next frame of one link, if there is one.
func (t *Team) take(m *member, in *ring.Ring) bool {
	f, st := in.Peek()
	switch st {
	case ring.Empty:
		return false
	case ring.InPlace:
		t.receive(m, f)
		in.Skip()
		return true
	}
	n, ok, err := in.TryRecv(m.buf)
	if !ok || err != nil {
		return false
	}
	t.receive(m, m.buf[:n])
	return true
}

// receive relays a tree frame down its origin's tree, then steps the
// frame's messages.
func (t *Team) receive(m *member, f []byte) {
	kind, origin, _, err := frameHeader(f)
	if err != nil {
		return
	}
	if kind == frameTree && origin < len(t.kids) {
		m.received.Add(1)
		if kids := t.kids[origin][m.id]; len(kids) > 0 {
			prev := m.replica.prof.enter(phaseRelay)
			for _, c := range kids {
				t.forward(origin, m.id, c, f)
			}
			m.replica.prof.enter(prev)
		}
	}
	prev := m.replica.prof.enter(phaseStep)
	m.stepFrame(f)
	m.replica.prof.enter(prev)
}

// stepFrame steps a frame's messages, each as soon as it is decoded
// (none is kept, so none is copied twice); a frame cut short by a bad
// message has its messages before it stepped, as if it had been sent
// without the rest.
func (m *member) stepFrame(f []byte) {
	r, err := openFrame(f)
	if err != nil {
		return
	}
	var msg agree.Message
	for {
		if ok, _ := r.next(&msg, &m.values); !ok {
			return
		}
		m.replica.step(&msg)
	}
}

// pending reports whether m has frames waiting or frames to send.
func (t *Team) pending(m *member) bool {
	if m.waiting > 0 {
		return true
	}
	for _, in := range m.in {
		if in != nil {
			if _, st := in.Peek(); st != ring.Empty {
				return true
			}
		}
	}
	return false
}

// tick advances the node's clock.
func (r *Replica) tick() {
	r.node.Tick()
	r.cfg.OnTick()
}

// ticker returns the replica's tick channel and what stops it.
func (r *Replica) ticker() (<-chan time.Time, func()) {
	if r.cfg.Ticks != nil {
		return r.cfg.Ticks, func() {}
	}
	t := time.NewTicker(r.cfg.Tick)
	return t.C, t.Stop
}
