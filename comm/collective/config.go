package collective

import (
	"fmt"
	"os"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// ModelSource says how New learns the costs between ranks.
type ModelSource int

// The model sources.
const (
	// Measure times a short ping-pong between every pair of ranks. When a
	// rank's machine is crowded (comm.World.Crowded), the times follow the
	// scheduler more than the links, and the model takes Placement's costs.
	Measure ModelSource = 1 + iota
	// Placement charges SameHost between ranks on one host and OtherHost
	// between hosts, from the host names the ranks report.
	Placement
)

// Defaults filled in by Config.Validate.
const (
	DefaultSamples    = 20
	DefaultMaxMessage = 64 << 10
	// DefaultSameHost and DefaultOtherHost are one-way message costs in
	// nanoseconds for Placement: TCP loopback on the development machine
	// takes about 15 µs one way (BenchmarkLinkPingPong), a LAN a few
	// times more. Only their ratio shapes the trees.
	DefaultSameHost  = 15_000
	DefaultOtherHost = 60_000
)

// Config describes a communicator. Every rank must pass the same
// settings, except Host and the contents of Given.
type Config struct {
	// Topology is the tree generator's topology; zero means tree.Adaptive.
	// tree.Best builds separate reduction and broadcast trees
	// (tree.BestPair). When every rank shares one crowded host (more
	// ranks than CPUs, comm.World.Crowded), Adaptive, AdaptiveBase and
	// Best give the flat tree instead: there the fewest hops in a row
	// win, whatever the costs measured.
	Topology tree.Topology
	// Root is the rank at the root of the trees, where rooted collectives
	// take no extra hop; tree.AutoRoot lets the generator choose the
	// cheapest rank. The zero value is rank 0.
	Root int
	// Model is how the costs between ranks are found; zero means Measure.
	Model ModelSource
	// Given, if not nil, is the model used instead of Model: one CPU per
	// rank, CPU id = rank, with costs. Every rank sets it or none does;
	// rank 0's is the one used.
	Given *topo.Model
	// Samples is the number of timed round trips per pair for Measure;
	// zero means DefaultSamples.
	Samples int
	// Host names this rank's host for the model; empty means
	// os.Hostname.
	Host string
	// SameHost and OtherHost are Placement's one-way costs in
	// nanoseconds; zero means the defaults.
	SameHost, OtherHost float64
	// MaxMessage is the longest message on a tree link: longer buffers go
	// in pieces of this size, pipelined down the tree. Zero means
	// DefaultMaxMessage; at least 64 and at most comm.MaxLinkMessage.
	MaxMessage int
	// Allreduce forces Allreduce's algorithm (tree.AllreduceTrees,
	// AllreduceDoubling or AllreduceRabenseifner) for every length; zero
	// lets rank 0 choose per length on the model of the ranks
	// (tree.PlanAllreduce), as it chooses the trees.
	Allreduce tree.Algorithm
	// NoPosts keeps Barrier, Broadcast and Allreduce on the links even
	// when every rank shares one shared-memory segment, where they would
	// otherwise run flat on the segment's collective area for payloads of
	// at most shm.PostBytes (Comm.PostBytes), and keeps Allreduce on the
	// trees (or the plan's algorithm) across hosts, where it would
	// otherwise fold each host's posts and cross between hosts at every
	// rank (docs/design/collectives.md, "Across hosts"). For comparisons.
	NoPosts bool
	// Hierarchy runs Barrier, Broadcast and Allreduce of at most
	// shm.PostBytes in two levels when the ranks span hosts and share
	// memory within each (comm.World.HostArea): each host's ranks on
	// their host's collective area, one leader per host on links between
	// hosts (docs/design/collectives.md, "Across hosts"). Off by default,
	// the trees run them: on machine C, whose namespace hosts share two
	// CPUs, the two levels measured slower (docs/benchmarks.md,
	// "Collectives across hosts in two levels"). The exception: where
	// some rank's machine is crowded and every machine's hosts run on
	// CPUs apart (separate machines, or hosts of one kernel whose ranks
	// comm.Join bound to shares apart), they run in two levels all the
	// same, unless Given, Allreduce, NoPosts or AcrossCrowded is set
	// (Comm.Levels says 2). NoPosts overrides it.
	// Without it, an Allreduce of at most shm.PostBytes across hosts that
	// hold two or more ranks each, as many on every host, none of them
	// crowded (more ranks than CPUs), runs without the trees all the
	// same: each host's ranks fold their posts, and every rank exchanges
	// the host's partial with its counterparts on the other hosts
	// (Comm.PostBytes).
	Hierarchy bool
	// AcrossCrowded runs that Allreduce across hosts on crowded machines
	// too, where by default the trees keep it (docs/design/collectives.md,
	// "Across hosts"). For comparisons and tests; Hierarchy, NoPosts and
	// Allreduce override it.
	AcrossCrowded bool
}

// Validate checks c and fills in its defaults.
func (c *Config) Validate() error {
	if c.Topology == 0 {
		c.Topology = tree.Adaptive
	}
	if c.Model == 0 {
		c.Model = Measure
	}
	if c.Model != Measure && c.Model != Placement {
		return fmt.Errorf("collective: config has an invalid model source (%d)", int(c.Model))
	}
	if err := c.validateNumbers(); err != nil {
		return err
	}
	if c.Allreduce != 0 && !c.Allreduce.Valid() {
		return fmt.Errorf("collective: config has an invalid allreduce algorithm (%d)", int(c.Allreduce))
	}
	if c.Host == "" {
		h, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("collective: host name: %w", err)
		}
		c.Host = h
	}
	return nil
}

func (c *Config) validateNumbers() error {
	c.Samples = orDefault(c.Samples, DefaultSamples)
	c.MaxMessage = orDefault(c.MaxMessage, DefaultMaxMessage)
	c.SameHost = orDefault(c.SameHost, DefaultSameHost)
	c.OtherHost = orDefault(c.OtherHost, DefaultOtherHost)
	switch {
	case c.Samples < 1:
		return fmt.Errorf("collective: config has %d samples, want at least 1", c.Samples)
	case c.MaxMessage < 64 || c.MaxMessage > comm.MaxLinkMessage:
		return fmt.Errorf("collective: MaxMessage %d outside [64, %d]", c.MaxMessage, comm.MaxLinkMessage)
	case c.SameHost < 0 || c.OtherHost < 0:
		return fmt.Errorf("collective: negative placement costs %g, %g", c.SameHost, c.OtherHost)
	}
	return nil
}

func orDefault[T int | float64](v, d T) T {
	if v == 0 {
		return d
	}
	return v
}
