package collective

import (
	"context"

	"github.com/plexus-hpc/plexus/internal/wait"
)

// crowdedPosts is the policy of a wait on a host's posts where the ranks
// outnumber the CPUs (flat.crowded): wait.Shared, whose waiter yields
// almost at once, with the yield giving up the thread's CPU
// (sched_yield), so that the ranks of this machine whose post or send the
// wait needs get it.
var crowdedPosts = func() wait.Policy {
	p := wait.Shared
	p.OSYield = true
	return p
}()

// wait waits until pending reports no rank of this host left to wait for
// (comm.Area.Wait's contract). On a crowded host it first polls the posts
// under crowdedPosts, and goes to Area.Wait only when that policy says
// sleep: Area.Wait polls the transport every few polls there and, when it
// returns, hands the sockets back to their receive goroutines, a wake-up
// of each per collective, where a wait on posts needs no transport at all
// (the posts are memory); the two-level barrier measured about twice as
// fast without them (docs/benchmarks.md, "Collectives across hosts on
// both implementations' default paths"). Area.Wait then watches for a
// lost rank and sleeps, so a rank still fails within its timeouts.
func (h *hier) wait(ctx context.Context, pending func() int) error {
	return h.f.hostWait(ctx, pending)
}

// hostWait is hier.wait on f, a host's posts: the waits of the
// collectives across hosts (hier.go, across.go).
func (f *flat) hostWait(ctx context.Context, pending func() int) error {
	if !f.crowded {
		return f.a.Wait(ctx, pending)
	}
	wt := wait.NewWaiter(&crowdedPosts)
	for {
		if pending() < 0 {
			return nil
		}
		switch wt.Idle() {
		case wait.Check, wait.Yield:
			if err := ctx.Err(); err != nil {
				return err
			}
		case wait.Sleep:
			return f.a.Wait(ctx, pending)
		}
	}
}
