package comm

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/internal/wait"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// The collective area (transport/shm's posts): when every rank of the
// world shares one shared-memory segment, each rank owns a few cache
// lines there that every other rank can read, on which comm/collective
// runs flat barriers, broadcasts and allreduces of a few bytes without a
// message (docs/design/collectives.md, "Posts across ranks"). Worlds
// with ranks on other hosts, or over TCP alone, have no area and keep
// the link paths.
//
// Waits on posts follow the links' (Link.Progress, coll's signal waits):
// tight loads first, then the waiting policy, progressing the world's
// transport every few polls (other traffic may be pending, and a
// serialized world receives only in its callers' polls), and sleeping
// where a post wakes the sleeper: on the transport's doorbell in a
// serialized world, else on a bell that the transport's receive goroutine
// rings before it sleeps (events.Idle), whose doorbell the post rings.

// poster is a transport whose ranks, numbered as the world's, all share a
// collective area (shm.Endpoint.Posts).
type poster interface {
	Posts(lane int) (*shm.Posts, error)
}

// Area is one lane of the collective area shared by every rank of a
// world, as one rank sees it: its own posts to write and every rank's to
// read (shm.Posts), and the waits on them.
//
// Concurrency contract: one goroutine at a time may write and wait (the
// collective's); the words may be loaded by any.
type Area struct {
	*shm.Posts
	link   Link          // progresses the world; its channel's bell wakes Wait
	bell   chan struct{} // rung by the link's channel (events.Idle, arrivals)
	closed atomic.Bool   // Close was called
	// ranks are the world's numbers of the area's ranks on a host area
	// (World.HostArea), nil on a world's area, whose numbers are the
	// world's.
	ranks []int
}

// ErrAreaClosed reports a wait on an Area that its owner closed.
var ErrAreaClosed = errors.New("comm: collective area closed")

// Close ends this rank's waits on the area, now and later, with
// ErrAreaClosed; it tells no other rank. Any goroutine may call it.
func (a *Area) Close() {
	a.closed.Store(true)
	a.link.c.ring()
}

// Area returns a lane of the collective area on link channel ch, which
// the caller reserved (ReserveChannels) and aborts with its other
// channels; nil when the ranks do not all share one shared-memory
// segment, or every lane is taken. Every rank must call it in the same
// order relative to other Area calls on the world, as for channels, so
// that the same lane means the same posts everywhere.
func (w *World) Area(ch int) *Area {
	p, ok := w.sig.(poster)
	if !ok || w.cfg.Size < 2 || ch < 0 || ch >= LinkChannels {
		return nil
	}
	lane := int(w.lanes.Add(1)) - 1
	posts, err := p.Posts(lane)
	if err != nil {
		return nil // every lane taken: the caller keeps the link paths
	}
	peer := (w.cfg.Rank + 1) % w.cfg.Size
	a := &Area{Posts: posts, link: Link{w: w, peer: peer, ch: ch, c: w.links.get(peer, ch)}, bell: make(chan struct{}, 1)}
	a.link.SetBell(a.bell)
	return a
}

// areaProgress is how often a wait on posts progresses the transport
// where the ranks outnumber the CPUs (waitSlow).
const areaProgress = 4

// Wait waits until pending reports no rank left to wait for (-1). pending
// returns a rank whose post the caller still awaits, and must be cheap:
// it is the poll. Wait fails when that rank is lost or the world closed
// (the errors a link to it would give), when the area's channel is
// aborted (ErrLinkAborted) or the area closed (ErrAreaClosed), or when
// ctx ends (ctx.Err() unchanged). A post made before its writer was lost
// still counts.
func (a *Area) Wait(ctx context.Context, pending func() int) error {
	for range wait.Owned.Flat {
		if pending() < 0 {
			return nil
		}
	}
	return a.waitSlow(ctx, pending)
}

// waitSlow is Wait once the tight polls have failed. It polls under
// the waiting policy and progresses the world (and looks for failures)
// every few polls: a poll of the posts is a load, a progress a sweep of
// the transport, during which a post that lands goes unseen, so on a
// host with a CPU per rank it progresses only at the policy's checks.
// Where the ranks outnumber the CPUs it progresses every areaProgress
// polls instead, as the links' waits do, since an empty progress gives
// the CPU away (Link.Progress), which the rank being waited for needs.
func (a *Area) waitSlow(ctx context.Context, pending func() int) error {
	policy, every := &wait.Owned, wait.Owned.Check
	if a.link.w.crowded {
		policy, every = &wait.Poller, areaProgress
	}
	wt := wait.NewWaiter(policy)
	progressed := false
	defer func() {
		if progressed && !a.link.w.serial {
			a.link.ProgressDone()
		}
	}()
	for i := 1; ; i++ {
		r := pending()
		if r < 0 {
			return nil
		}
		if i%every == 0 {
			if err := a.failed(r); err != nil {
				if pending() < 0 { // posted before it failed
					return nil
				}
				return err
			}
			if delivered, ok := a.link.Progress(); ok {
				progressed = true
				if delivered {
					continue
				}
			}
		}
		switch wt.Idle() { // pauses and yields itself
		case wait.Check, wait.Yield:
			if err := ctx.Err(); err != nil {
				return err
			}
		case wait.Sleep:
			if progressed && !a.link.w.serial {
				a.link.ProgressDone()
				progressed = false
			}
			if err := a.failed(r); err != nil && pending() >= 0 {
				return err
			}
			a.sleep(ctx, pending)
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
}

// failed returns why a wait for rank r's post cannot end: the area was
// closed, its channel aborted, r is lost or the world closed.
func (a *Area) failed(r int) error {
	if a.closed.Load() {
		return ErrAreaClosed
	}
	if err := a.link.c.group.err.Load(); err != nil {
		return *err
	}
	return a.link.w.peerErr(a.WorldRank(r))
}

// sleep blocks until a post or a delivery may have come, or for a
// bounded time: on the transport's doorbell in a serialized world (a post
// rings it, shm.Posts), else on the area's bell.
func (a *Area) sleep(ctx context.Context, pending func() int) {
	w := a.link.w
	if w.serial {
		sctx, cancel := context.WithTimeout(ctx, progressNap)
		w.sleepSerial(sctx, func() bool { return pending() < 0 })
		cancel()
		return
	}
	t := time.NewTimer(wait.WakeTimeout)
	select {
	case <-a.bell:
	case <-t.C:
	case <-ctx.Done():
	}
	t.Stop()
}
