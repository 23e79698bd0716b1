package collective

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// Allreduce across hosts without a trailing broadcast
// (docs/design/collectives.md, "Across hosts"). Where the ranks span
// hosts that each hold the same number of them (at least two), and share
// memory within each (comm.World.HostArea), on machines with a CPU per
// rank (acrossHosts), an Allreduce of at most shm.PostBytes takes two
// steps, and every rank takes both:
//
//   - Within its host, on the posts: every rank writes its input as post
//     k, waits for every rank of its host to post k, and folds the
//     host's inputs in rank order: the host's partial, the same bytes at
//     every rank of the host (flat.allreduce's round, on the host area).
//   - Across hosts, on its own link: the rank with local index j on host
//     h exchanges partials with the rank of local index j on the other
//     hosts, by recursive doubling over the hosts (doublingSteps, the
//     two-level leaders' schedule, with every local index running its
//     own copy at once). For two hosts that is one hop, both ways at
//     once.
//
// So every rank ends with the hosts' partials in doublingSteps'
// bracketing (2 hosts h0∘h1, 4 hosts (h0∘h1)∘(h2∘h3), 3 hosts
// (h0∘h2)∘h1), each host's partial being its inputs in rank order: the
// same bytes everywhere, floating point included, with no host
// broadcast after the exchange, where the trees take a reduction and a
// broadcast (four hops in a row on 2 × 2 ranks) and the two levels a
// hand-off to the leader, the leaders' exchange and a hand-off back.
//
// The posts keep flat's invariants (posts.go): every rank of a host
// posts every k, in order, and waits for all of its host's posts of k,
// so floor reaches k and the next post's line is always reusable. The
// exchanges run on a channel of their own, in collective order, so a
// link message is always the one the step expects: within one allreduce
// each link direction carries at most one message (a rank meets each
// peer host in one step), and a rank receives its partner's message of
// an allreduce before it sends the next one's.
//
// Failures end the communicator as elsewhere (Comm.done): a rank whose
// partner is lost fails with the loss, and ranks waiting on its posts or
// on its partials fail with the abort that follows.

// across is a communicator's state for that Allreduce. It belongs to the
// collective's goroutine, but for the area's and the links' internals.
type across struct {
	f     *flat // this host's posts
	hosts int
	host  int   // this rank's host, by index in comm.World.Hosts
	peers []int // by host: the rank of this rank's local index there
	links []*comm.Link
	w     *comm.World
	ch    int
	in    []byte // shm.PostBytes: a received partial
}

// acrossHosts returns the communicator's state for Allreduce across
// hosts when the rule allows it, else nil, and Allreduce keeps the
// trees' (or the plan's) algorithm: the ranks span at least two hosts,
// every host holds the same number of ranks, at least two, every rank
// has its host's area, Config.Allreduce forces nothing, and no rank's
// machine is crowded (more ranks than CPUs) unless Config.AcrossCrowded
// says so. The choice is a rule, the same at every rank (all see the
// same groups and the same crowded, and HostArea's answer is the same
// everywhere), not the model's.
//
// Crowded machines keep the trees: there the collective is bound by the
// CPU time of its messages more than by its hops in a row, and crossing
// at every rank sends p messages between two hosts where the trees send
// one; on namespace hosts sharing two CPUs it measured no faster than
// the trees (docs/benchmarks.md, "Allreduce across hosts with every
// rank crossing").
func (c *Comm) acrossHosts(crowded bool) *across {
	groups := c.w.Hosts()
	if c.cfg.Allreduce != 0 || !EvenHosts(groups) || crowded && !c.cfg.AcrossCrowded {
		return nil
	}
	a, ok := c.w.HostArea(c.base + chArea)
	if !ok || a == nil {
		return nil
	}
	return newAcross(c.w, groups, a, c.base+chAcross, crowded)
}

// EvenHosts reports whether groups (comm.World.Hosts) span at least two
// hosts with the same number of ranks on each, at least two: the ranks
// that the Allreduce across hosts can run on (Config.AcrossCrowded says
// when it does). Benchmarks use it to know whether forcing it changes
// anything.
func EvenHosts(groups [][]int) bool {
	if len(groups) < 2 || len(groups[0]) < 2 {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != len(groups[0]) {
			return false
		}
	}
	return true
}

// newAcross returns the state over groups for w's rank, whose host's
// area is a, with its exchanges on link channel ch.
func newAcross(w *comm.World, groups [][]int, a *comm.Area, ch int, crowded bool) *across {
	x := &across{f: newFlat(a, crowded), hosts: len(groups), w: w, ch: ch,
		links: make([]*comm.Link, len(groups)), in: make([]byte, shm.PostBytes)}
	x.host, x.peers = counterparts(groups, w.Rank())
	return x
}

// counterparts returns rank me's host index in groups and, for every
// host, the rank with me's local index there (me itself on its own
// host). The groups must hold the same number of ranks each.
func counterparts(groups [][]int, me int) (host int, peers []int) {
	j := 0
	for h, g := range groups {
		for i, r := range g {
			if r == me {
				host, j = h, i
			}
		}
	}
	peers = make([]int, len(groups))
	for h, g := range groups {
		peers[h] = g[j]
	}
	return host, peers
}

// link returns the link to host's counterpart, made on first use.
func (x *across) link(host int) (*comm.Link, error) {
	if l := x.links[host]; l != nil {
		return l, nil
	}
	l, err := x.w.Link(x.peers[host], x.ch)
	if err != nil {
		return nil, fmt.Errorf("collective: link to rank %d on host %d: %w", x.peers[host], host, err)
	}
	x.links[host] = l
	return l, nil
}

// allreduce is Allreduce across hosts; len(in) ≤ shm.PostBytes and
// len(out) = len(in). out may overlap in: the host's fold reads only the
// posts.
func (x *across) allreduce(ctx context.Context, in, out []byte, op func(acc, in []byte)) error {
	if in == nil {
		in = x.in[:0] // a post of no bytes, not a mark
	}
	if err := x.hostFold(ctx, in, out, op); err != nil {
		return err
	}
	return exchangeSteps(ctx, doublingSteps(x.host, x.hosts), x.link, out, x.in[:len(out)], op)
}

// hostFold posts in, waits for every rank of this host to post as much
// and folds their posts into out in rank order.
func (x *across) hostFold(ctx context.Context, in, out []byte, op func(acc, in []byte)) error {
	return x.f.allreduceWaiting(ctx, in, out, op, x.f.hostWait)
}
