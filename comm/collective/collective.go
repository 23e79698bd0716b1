package collective

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/coll"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// The channels a communicator reserves on its world, from its base.
const (
	chDirect        = iota // setup, measurement, hops to and from a root off the trees
	chTrees                // coll.LaneTrees
	chDissemination        // coll.LaneDissemination
	chButterfly            // coll.LaneButterfly
	chArea                 // the collective area's waits and aborts (posts.go)
	chHier                 // the links between hosts' leaders (hier.go)
	chAcross               // the links between counterparts on other hosts (across.go)
	channels
)

// ErrClosed reports a communicator that was closed (Comm.Close), or that
// an earlier failure of one of its collectives, here or at another rank,
// made unusable; the error also wraps that cause.
//
// It is the communicator's, not the world's: a collective that reaches a
// rank of a closed world fails with an error wrapping comm.ErrClosed (and
// later ones with ErrClosed wrapping that), so errors.Is(err,
// comm.ErrClosed) tells a closed world whichever layer reported it. The
// errors of this package never wrap coll.ErrClosed, which is about teams
// inside one process.
var ErrClosed = errors.New("collective: communicator closed")

// Comm is one rank's end of a communicator: this rank's member of a team
// spread over the world's ranks, one member per rank, joined by links
// along the edges of trees that rank 0 planned on a model of the ranks.
//
// Concurrency contract: a Comm's collectives must be called by one
// goroutine at a time, and every rank must call them in the same order,
// with the same root and lengths (as in MPI). Close, Err and the
// accessors may be called from any goroutine. Point-to-point traffic on
// the world may go on at the same time from any goroutines: it never
// meets the collectives' (see comm.Link).
type Comm struct {
	// Invariants: member, links and trees are fixed by New, except links
	// to ranks off the trees, which the collective's goroutine adds;
	// failure goes from nil to its first value once.

	w      *comm.World
	cfg    Config
	base   int
	member *coll.Member
	reduce *tree.Tree
	bcast  *tree.Tree
	// allreduce is Allreduce's algorithm per piece length, rank 0's
	// plan (allreduce.go).
	allreduce tree.AllreducePlan
	model     *topo.Model // rank 0 only
	direct    map[int]*comm.Link
	scratch   []byte
	values    []byte // the Values helpers' encodings (values.go)
	vfold     any    // the Values helpers' op (valuefold.go)
	// flat runs small collectives on the collective area when every rank
	// shares one shared-memory segment, else nil (posts.go).
	flat *flat
	// hier runs them in two levels when the ranks span hosts, else nil
	// (hier.go).
	hier *hier
	// across runs small allreduces across hosts with every rank
	// crossing, when the ranks span hosts evenly and Hierarchy is off,
	// else nil (across.go).
	across *across

	// failure is read at the start of every collective, so it is an
	// atomic pointer rather than a mutex's field: a load, not a lock and
	// an unlock, on a 2-rank allreduce's path of a few hundred ns.
	failure atomic.Pointer[error]
}

// New makes this rank's end of a communicator over w. Every rank of w must
// call it, in the same order relative to other New calls on w, with the
// same cfg. It times the ranks (Config.Model), has rank 0 plan the trees
// and links this rank to its tree neighbours; it returns once rank 0 has
// sent the trees, which needs every rank.
func New(ctx context.Context, w *comm.World, cfg Config) (*Comm, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	base, err := w.ReserveChannels(channels)
	if err != nil {
		return nil, fmt.Errorf("collective: %w", err)
	}
	c := &Comm{w: w, cfg: cfg, base: base, direct: map[int]*comm.Link{}}
	var p plan
	if p, err = c.plan(ctx); err == nil {
		c.reduce, c.bcast, c.allreduce = p.Reduce, p.Bcast, p.Allreduce
		ccfg := coll.Config{Broadcast: c.bcast, Reduce: c.reduce, MaxMessage: cfg.MaxMessage, Allreduce: p.Allreduce}
		c.member, err = coll.NewMember(ccfg, w.Rank(), c.dial)
	}
	if err == nil && !cfg.NoPosts {
		if a := w.Area(base + chArea); a != nil {
			c.flat = newFlat(a, p.Crowded)
		} else if c.hier = c.hosts(p.Crowded, p.TwoLevels); c.hier == nil && !cfg.Hierarchy {
			c.across = c.acrossHosts(p.Crowded)
		}
	}
	if err != nil {
		c.abort(err)
		return nil, err
	}
	return c, nil
}

// Links wake napping members and let waiting ones poll the transport.
var (
	_ coll.Belled          = (*comm.Link)(nil)
	_ coll.Progresser      = (*comm.Link)(nil)
	_ coll.ProgressSleeper = (*comm.Link)(nil)
)

// dial is the member's Dialer: a link per peer and lane, on the
// communicator's channels.
func (c *Comm) dial(peer int, lane coll.Lane) (coll.Link, error) {
	ch := c.base + chTrees
	switch lane {
	case coll.LaneDissemination:
		ch = c.base + chDissemination
	case coll.LaneButterfly:
		ch = c.base + chButterfly
	}
	return c.w.Link(peer, ch)
}

// link returns the direct link to peer.
func (c *Comm) link(peer int) (*comm.Link, error) {
	if l := c.direct[peer]; l != nil {
		return l, nil
	}
	l, err := c.w.Link(peer, c.base+chDirect)
	if err != nil {
		return nil, fmt.Errorf("collective: %w", err)
	}
	c.direct[peer] = l
	return l, nil
}

// Rank returns this rank.
func (c *Comm) Rank() int { return c.w.Rank() }

// Size returns the number of ranks.
func (c *Comm) Size() int { return c.w.Size() }

// Root returns the rank at the root of the trees.
func (c *Comm) Root() int { return c.bcast.Root }

// Trees returns the reduction and broadcast trees (the same tree unless
// Config.Topology is tree.Best). The caller must not modify them.
func (c *Comm) Trees() (reduce, bcast *tree.Tree) { return c.reduce, c.bcast }

// Levels returns 2 when Barrier, Broadcast and Allreduce of at most
// PostBytes run in two levels across hosts (Config.Hierarchy: each host's
// ranks on its shared memory, one leader per host between hosts), else 1:
// on the trees, or flat on one host's shared memory. It is the same at
// every rank.
func (c *Comm) Levels() int {
	if c.hier != nil {
		return 2
	}
	return 1
}

// Model returns the model of the ranks the trees were planned on, at
// rank 0; elsewhere nil, since only rank 0 holds every measurement.
func (c *Comm) Model() *topo.Model { return c.model }

// Err returns nil while the communicator is usable, else why not.
func (c *Comm) Err() error {
	if p := c.failure.Load(); p != nil {
		return *p
	}
	return nil
}

// Close ends this rank's end of the communicator: later collectives here
// fail with ErrClosed. It tells no other rank, so that ranks still
// finishing the last collective are not disturbed: close every rank's end
// once all are done. The world stays open.
func (c *Comm) Close() {
	c.setFailure(ErrClosed)
	c.member.Team().Close()
	if c.flat != nil {
		c.flat.a.Close()
	}
	if c.hier != nil && c.hier.f != nil {
		c.hier.f.a.Close()
	}
	if c.across != nil {
		c.across.f.a.Close()
	}
}

// setFailure records the first failure; it reports whether err was it.
func (c *Comm) setFailure(err error) bool {
	return c.failure.CompareAndSwap(nil, &err)
}

// done ends the communicator everywhere when a collective failed: the
// member's team has ended already; aborting the channels makes every rank
// waiting in a collective, here or elsewhere, fail too rather than wait
// for a rank that will not come.
func (c *Comm) done(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, coll.ErrClosed) || errors.Is(err, comm.ErrAreaClosed) {
		// The member's team ended under this collective, which only
		// Close does (any other failure is this collective's own):
		// report the communicator's state, not the team's.
		if f := c.Err(); f != nil {
			return f
		}
	}
	if c.setFailure(fmt.Errorf("%w: %w", ErrClosed, err)) {
		c.abort(err)
	}
	return err
}

// abort aborts the communicator's channels at every rank.
func (c *Comm) abort(err error) {
	for ch := range channels {
		c.w.AbortLinks(c.base+ch, err)
	}
}

// begin returns the reason a collective cannot start, or nil. A context
// that ended already ends the communicator as one ending mid-way would:
// the other ranks will be waiting in this collective, and this rank can
// no longer keep the common order.
func (c *Comm) begin(ctx context.Context) error {
	if err := c.Err(); err != nil {
		return err
	}
	return c.done(ctx.Err())
}
