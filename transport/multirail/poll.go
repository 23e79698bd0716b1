package multirail

import (
	"context"
	"fmt"
	"time"

	"github.com/plexus-hpc/plexus/internal/wait"
)

// Polling (Config.Poll): a Recv that finds no message ready reads the
// rails' sockets itself for a short spin (the waiting policy's Poller)
// before it sleeps, so that a message that arrives meanwhile costs no
// netpoller wake-up of a reader goroutine and no wake-up of Recv after
// it. Meanwhile the rails' reader goroutines stand aside: woken by the
// netpoller for every frame, they would only contend for rmu and the CPU.
// A spin counts itself on each rail it polls (railConn.spins, once a
// spin: a clock read on every poll cost about as much user time as the
// rest of an empty poll; docs/benchmarks.md, "Rails: the Link's CPU per
// small message"), and a reader stands aside while the count moves:
// it looks again after wait.StandAside, then after twice as long each
// time, up to asideMax, and reads (and waits in poll(2)) as usual once
// a whole look went by with no spin, or once the poller says it is
// going to sleep. So a rail is never left unread for longer than twice
// asideMax after the last spin that polled it began (a spin lasts far
// less: wait.Poller), even if its poller stops calling. A Send, Flush
// or wait for window space, which wait for acknowledgements, end the
// standing aside: the readers bring them. transport/tcp polls its
// connections the same way, timing its polls with the clock.

// spin polls the rails until ready reports true (it returns true), ctx
// ends or the spin is over (false). ready is called without mu. The
// readers stand aside until a spin ends unready: a caller that got what
// it waited for is likely to poll again soon (the next Recv of a
// ping-pong), and waking them for nothing would cost two wake-ups a
// message. The spin is the Link's wait.Spinner: how each spin that got
// its answer ended teaches it whether the peer shares this CPU, and the
// next spins poll under the policy that fits.
func (l *Link) spin(ctx context.Context, ready func() bool) bool {
	poll := func(n int) bool {
		// A rail is counted at its first poll of the spin: the hot one at
		// the first, the others at the first that polls them all.
		l.pollRails(n%pollAll == 0, n == 1 || n == pollAll)
		return ready()
	}
	stop := func() bool { return ctx.Err() != nil }
	// ready again after each failed poll: brought by a reader or another
	// poller.
	if l.spinner.Spin(poll, ready, stop) == wait.Found {
		return true
	}
	l.pollDone()
	return false
}

// pollAll is how often a spin polls every rail; between, it polls only
// the rail that last brought something to a poller. A ping-pong's
// answers come on one rail (the one the strategy picks for their size,
// which takes the lazy acknowledgement along), and a read of an empty
// socket is a system call; the others are still polled often enough for
// their readers to stand aside (wait.StandAside is many spins). The
// first poll of a spin is of that rail alone.
const pollAll = 4

// pollRails polls the rail last found busy, or every rail if all is
// set, counting the spin on each rail it polls if count is set, and
// takes down a rail whose poll failed.
func (l *Link) pollRails(all, count bool) {
	hot := int(l.hot.Load())
	for _, rc := range l.rails {
		if rc.sock == nil || (!all && rc.i != hot) {
			continue
		}
		if count {
			rc.spins.Add(1)
		}
		got, err := l.poll(rc)
		if err != nil {
			l.railFailed(rc.i, fmt.Errorf("multirail: rail %d: %w", rc.i, err))
		} else if got && rc.i != hot {
			hot = rc.i
			l.hot.Store(int32(hot))
		}
	}
}

// recvReady reports whether Recv has something to return: a message or
// the Link's error.
func (l *Link) recvReady() bool { return l.ready.Load() > 0 || l.dead.Load() }

// pollDone ends the rails' readers' standing aside now: the spins
// counted so far are over.
func (l *Link) pollDone() {
	for _, rc := range l.rails {
		rc.spinsOver.Store(rc.spins.Load())
		rc.wakeReader()
	}
}

// poll reads and handles what has arrived on rc, unless another
// goroutine is reading it; it reports whether it read anything, and the
// error that ends the rail, if it met one.
func (l *Link) poll(rc *railConn) (got bool, err error) {
	if !rc.rmu.TryLock() {
		return false, nil
	}
	defer rc.rmu.Unlock()
	if rc.rerr != nil {
		return false, nil
	}
	rc.got = false
	rc.rerr = l.drain(rc)
	return rc.got, rc.rerr
}

// wakeReader makes the reader goroutine re-check whether it should stand
// aside.
func (rc *railConn) wakeReader() {
	select {
	case rc.resume <- struct{}{}:
	default:
	}
}

// standAside waits while pollers read the rail: from a spin counted
// since the reader last stopped standing aside until a whole look goes
// by with none, or pollDone says the spins are over. The first look
// lasts wait.StandAside, and each look that finds spins still counted
// lasts twice the one before, up to asideMax: a reader that looked every
// wait.StandAside through a long ping-pong woke a thread thousands of
// times a second, each time on a CPU that a spinning poller or its peer
// needed, and the round trips it landed on made most of the Link's tail
// (docs/benchmarks.md, "Rails: no timer fires in a ping-pong"). Only the
// reader goroutine may call it.
func (rc *railConn) standAside() {
	seen := rc.spins.Load()
	if !asideFor(seen, rc.readFrom, rc.spinsOver.Load()) {
		rc.readFrom = seen
		return
	}
	look := wait.StandAside
	t := rc.asideTimer
	t.Reset(look)
	defer t.Stop()
	for {
		select {
		case <-rc.resume: // pollDone; stale if a spin began since
			if now := rc.spins.Load(); now == rc.spinsOver.Load() {
				rc.readFrom = now
				return
			}
		case <-rc.stop:
			return
		case <-t.C:
			now := rc.spins.Load()
			if !asideFor(now, seen, rc.spinsOver.Load()) {
				rc.readFrom = now
				return
			}
			seen = now
			look = nextLook(look)
			t.Reset(look)
		}
	}
}

// asideMax is the longest look of a reader standing aside.
const asideMax = 64 * wait.StandAside

// nextLook is the look after one of d that found spins still counted.
func nextLook(d time.Duration) time.Duration { return min(2*d, asideMax) }

// asideFor reports whether a reader stands aside: whether spins were
// counted on its rail since it last looked (the count now against the
// count then) and pollDone has not said that they are over (the count
// it saw then).
func asideFor(now, then, over uint64) bool { return now != then && now != over }
