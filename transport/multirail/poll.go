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
// A reader waits instead until no poll came for wait.StandAside, or
// until the poller says it is going to sleep, and then reads (and waits
// in the netpoller) as usual; so a rail is never left unread for longer
// than that, even if its poller stops calling. A Send or Flush that waits
// for acknowledgements ends the standing aside: the readers bring them.
// transport/tcp polls its connections the same way.

// epoch is the origin of the rails' poll times.
var epoch = time.Now()

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
		l.pollRails(n%pollAll == 0)
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
// set, and takes down a rail whose poll failed.
func (l *Link) pollRails(all bool) {
	hot := int(l.hot.Load())
	for _, rc := range l.rails {
		if rc.sock == nil || (!all && rc.i != hot) {
			continue
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

// pollDone ends the rails' readers' standing aside now.
func (l *Link) pollDone() {
	for _, rc := range l.rails {
		rc.polled.Store(0)
		rc.wakeReader()
	}
}

// poll reads and handles what has arrived on rc, unless another
// goroutine is reading it; it reports whether it read anything, and the
// error that ends the rail, if it met one.
func (l *Link) poll(rc *railConn) (got bool, err error) {
	rc.polled.Store(int64(time.Since(epoch)))
	if !rc.rmu.TryLock() {
		return false, nil
	}
	defer rc.rmu.Unlock()
	if rc.rerr != nil {
		return false, nil
	}
	rc.got = false
	if err := l.drain(rc); err != errAgain {
		rc.rerr = err
	}
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

// standingAside reports whether a poll came within wait.StandAside.
func (rc *railConn) standingAside() bool {
	last := rc.polled.Load()
	return last != 0 && time.Duration(int64(time.Since(epoch))-last) < wait.StandAside
}

// standAside waits while pollers read the rail. Only the reader
// goroutine may call it.
func (rc *railConn) standAside() {
	if !rc.standingAside() {
		return
	}
	t := time.NewTimer(wait.StandAside)
	defer t.Stop()
	for rc.standingAside() {
		select {
		case <-rc.resume:
		case <-rc.stop:
			return
		case <-t.C:
			t.Reset(wait.StandAside)
		}
	}
}
