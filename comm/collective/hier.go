package collective

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// Hierarchical collectives across hosts (docs/design/collectives.md,
// "Across hosts"). In a world whose ranks span hosts, with
// Config.Hierarchy, Barrier, Broadcast
// and Allreduce of at most shm.PostBytes run in two levels: the ranks of
// each host meet on their host's collective area (comm.World.HostArea),
// and one rank per host, its leader (its lowest rank), crosses between
// hosts on links to the other leaders. Between two hosts that is one hop
// each way at once, where the trees take a hop up and a hop down.
//
//   - Barrier: every rank but the leader marks post k; the leader waits
//     for them, runs a zero-byte exchange with the other leaders
//     (doublingSteps), then marks post k, which its host's ranks await.
//   - Allreduce: every rank but the leader writes its input as post k;
//     the leader folds its host's inputs in rank order, exchanges the
//     partial with the other leaders (doublingSteps, whose bracketing
//     puts hosts in order within each pair) and writes the result as its
//     post k, which its host's ranks copy. So every rank returns the
//     leaders' one result: the same bytes everywhere, floating point
//     included.
//   - Broadcast: the root writes post k (when it is not alone on its
//     host); its host's leader forwards the data down a binomial tree of
//     leaders (bcastChildren); every other leader writes it as post k;
//     the other ranks copy their source's post and mark post k.
//
// The posts keep flat's invariants (posts.go) on each host: every rank
// of the host posts every k, in order, once done with k-1; a barrier and
// an allreduce end with every rank knowing that all of its host posted k
// (the leader posts k only after all of them), a broadcast's writer
// looks first (flat.reusable). The leaders' links are a channel of
// their own, in collective order, so a link message is always the one
// the step expects.
//
// A failure anywhere ends the communicator at every rank it can reach
// (Comm.done aborts every channel, the area's included): a leader whose
// peer host is lost fails with the loss, and the ranks waiting on its
// post fail with the abort.

// hier is a communicator's state for the hierarchical collectives.
// Everything but the links' and the area's internals belongs to the
// collective's goroutine.
type hier struct {
	f      *flat // this host's posts; nil when the rank is alone there
	hosts  int   // how many hosts
	host   int   // this rank's host, by index
	hostOf []int // every rank's host
	local  []int // every rank's number on this host's area, or -1
	leader bool
	groups [][]int
	// leaders holds the links to the other hosts' leaders made so far,
	// by host, at a leader (nil elsewhere): on channel ch of w.
	leaders []*comm.Link
	w       *comm.World
	ch      int
	acc, in []byte // shm.PostBytes each: a leader's partial, a received value
}

// newHier returns the hierarchical state over groups (comm.World.Hosts)
// for rank me, with a the host's area (nil when me is alone there), and
// links on channel ch to the other leaders.
func newHier(w *comm.World, groups [][]int, a *comm.Area, ch int, crowded bool) *hier {
	me := w.Rank()
	h := &hier{hosts: len(groups), groups: groups, hostOf: make([]int, w.Size()), local: make([]int, w.Size()),
		acc: make([]byte, shm.PostBytes), in: make([]byte, shm.PostBytes)}
	for i, g := range groups {
		for _, r := range g {
			h.hostOf[r], h.local[r] = i, -1
			if r == me {
				h.host = i
			}
		}
	}
	for j, r := range groups[h.host] {
		h.local[r] = j
	}
	h.leader = groups[h.host][0] == me
	if a != nil {
		h.f = newFlat(a, crowded)
	}
	if h.leader {
		h.w, h.ch, h.leaders = w, ch, make([]*comm.Link, h.hosts)
	}
	return h
}

// link returns the link to host's leader, made on first use: a leader
// talks to the few leaders its schedules name, not to every one.
func (h *hier) link(host int) (*comm.Link, error) {
	if l := h.leaders[host]; l != nil {
		return l, nil
	}
	l, err := h.w.Link(h.groups[host][0], h.ch)
	if err != nil {
		return nil, fmt.Errorf("collective: link to host %d's leader: %w", host, err)
	}
	h.leaders[host] = l
	return l, nil
}

// barrier is Barrier across hosts.
func (h *hier) barrier(ctx context.Context) error {
	k, err := h.gather(ctx, nil)
	if err != nil || !h.leader {
		return err
	}
	if err := h.exchange(ctx, h.acc[:0], nil); err != nil {
		return err
	}
	if h.f != nil {
		h.f.a.Mark(k)
	}
	return nil
}

// allreduce is Allreduce across hosts; len(in) ≤ shm.PostBytes, len(out)
// = len(in).
func (h *hier) allreduce(ctx context.Context, in, out []byte, op func(acc, in []byte)) error {
	if in == nil {
		in = h.in[:0] // a post of no bytes, not a mark
	}
	acc := h.acc[:len(in)]
	copy(acc, in) // before gather: out may overlap in, and the leader folds into acc
	k, err := h.gather(ctx, in)
	if err != nil {
		return err
	}
	if !h.leader {
		return h.take(k, 0, out)
	}
	if h.f != nil {
		for r := 1; r < h.f.n; r++ {
			op(acc, h.f.a.Payload(r, k, len(in)))
		}
	}
	if err := h.exchange(ctx, acc, op); err != nil {
		return err
	}
	copy(out, acc)
	if h.f == nil {
		return nil
	}
	err = h.f.a.Write(k, acc) // every rank of the host posted k: reusable
	h.f.warm()
	return err
}

// gather posts this rank's part of post k (in, or a mark for nil) and
// returns k. A leader waits for every other rank of its host to post k,
// each with len(in) bytes (or a mark); the others wait for the leader's
// post k, which it makes once it has the result.
func (h *hier) gather(ctx context.Context, in []byte) (uint64, error) {
	f := h.f
	if f == nil {
		return 0, nil
	}
	f.seq++
	k := f.seq
	if h.leader {
		f.want, f.next, f.wantLen, f.bad = k, 1, postLen(in), -1
		if err := h.wait(ctx, f.pendAll); err != nil {
			return k, err
		}
		f.floor = k
		if f.bad >= 0 {
			return k, f.check(f.bad, k, postLen(in))
		}
		return k, nil
	}
	if err := h.post(ctx, k, in); err != nil {
		return k, err
	}
	f.want, f.root = k, 0
	if err := h.wait(ctx, f.pendRoot); err != nil {
		return k, err
	}
	f.floor = k // the leader posted k once every rank of the host had
	return k, nil
}

// post writes in as post k, or marks it for nil.
func (h *hier) post(ctx context.Context, k uint64, in []byte) error {
	f := h.f
	if in == nil {
		f.a.Mark(k)
		return nil
	}
	if err := f.reusable(ctx, k); err != nil {
		return err
	}
	err := f.a.Write(k, in)
	f.warm()
	return err
}

// postLen is the length a post of in carries: shm.MarkLen for nil.
func postLen(in []byte) int {
	if in == nil {
		return shm.MarkLen
	}
	return len(in)
}

// take copies rank r's (by its number on the area) post k into out,
// which must be the length r posted.
func (h *hier) take(k uint64, r int, out []byte) error {
	if err := h.f.check(r, k, len(out)); err != nil {
		return err
	}
	copy(out, h.f.a.Payload(r, k, len(out)))
	return nil
}

// hosts returns the communicator's hierarchical state when
// Config.Hierarchy or rank 0's plan (twoLevels: a crowded machine whose
// hosts run on CPUs apart, apart.go) asks for it, the ranks span hosts
// and every rank has its host's area (comm.World.HostArea); else nil,
// and the trees run every collective. The choice is a rule, the same at
// every rank, not the model's. Worlds over TCP alone keep the trees: one level of
// recursive doubling over the ranks in host order (Open MPI's pairing)
// measured slower than the trees there (docs/benchmarks.md,
// "Collectives across hosts in two levels").
func (c *Comm) hosts(crowded, twoLevels bool) *hier {
	groups := c.w.Hosts()
	if !c.cfg.Hierarchy && !twoLevels || len(groups) < 2 {
		return nil
	}
	if a, ok := c.w.HostArea(c.base + chArea); ok {
		return newHier(c.w, groups, a, c.base+chHier, crowded)
	}
	return nil
}
