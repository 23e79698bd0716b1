package tree

import (
	"fmt"
	"strings"

	"github.com/plexus-hpc/plexus/topo"
)

// Topology names a way of building a tree.
type Topology int

// The topologies. Adaptive is Smelt's adaptive tree with both incremental
// optimisations (send reordering and shuffling); AdaptiveBase is its base
// algorithm alone. Best optimises a tree for one operation under the
// simulator and is never worse than any other topology here.
const (
	Adaptive Topology = 1 + iota
	Best
	Binary
	Fibonacci
	Sequential
	MST
	Cluster
	Bad
	AdaptiveBase
)

// Topologies returns every topology in display order, in a new slice.
func Topologies() []Topology {
	return []Topology{Adaptive, Best, Binary, Fibonacci, Sequential, MST, Cluster, Bad, AdaptiveBase}
}

// Static returns the machine-oblivious and machine-aware static
// topologies of Smelt §2.4, in a new slice.
func Static() []Topology {
	return []Topology{Binary, Fibonacci, Sequential, MST, Cluster, Bad}
}

var topologyNames = map[Topology]string{
	Adaptive: "adaptive", Best: "best", Binary: "binary", Fibonacci: "fibonacci",
	Sequential: "sequential", MST: "mst", Cluster: "cluster", Bad: "bad", AdaptiveBase: "adaptive-base",
}

// String returns the topology's CLI name.
func (t Topology) String() string {
	if s, ok := topologyNames[t]; ok {
		return s
	}
	return fmt.Sprintf("Topology(%d)", int(t))
}

// ParseTopology parses a topology name as printed by String.
func ParseTopology(s string) (Topology, error) {
	all := Topologies()
	for _, t := range all {
		if strings.EqualFold(s, t.String()) {
			return t, nil
		}
	}
	names := make([]string, len(all))
	for i, t := range all {
		names[i] = t.String()
	}
	return 0, fmt.Errorf("tree: unknown topology %q (want one of %s)", s, strings.Join(names, ", "))
}

// AutoRoot asks Build to choose the root: the member with the lowest total
// send cost to the others, as Smelt does.
const AutoRoot = -1

// Spec says which tree to build.
type Spec struct {
	Topology Topology
	// Op is the operation Best optimises for; zero means Bcast. Other
	// topologies ignore it.
	Op Op
	// CPUs is the multicast group (OS CPU numbers); nil means every CPU of
	// the model. The order matters for the static topologies, which number
	// members in this order after the root.
	CPUs []int
	// Root is the root's OS CPU number, or AutoRoot.
	Root int
	// Progress, when not nil, is called on the calling goroutine while
	// Build builds a Best tree, with the work done so far and the total
	// (done == total at the end); the search takes minutes on thousands of
	// CPUs. Other topologies and BestPair do not call it.
	Progress func(done, total int)
}

// Validate checks the spec and fills in defaults.
func (s *Spec) Validate() error {
	if _, ok := topologyNames[s.Topology]; !ok {
		return fmt.Errorf("tree: spec has no valid topology (%d)", int(s.Topology))
	}
	if s.Op == 0 {
		s.Op = Bcast
	}
	if s.Op < Bcast || s.Op > ReleaseBarrier {
		return fmt.Errorf("tree: spec has an invalid operation (%d)", int(s.Op))
	}
	return nil
}

// Build builds the tree spec asks for on model m, which must have costs.
func Build(m *topo.Model, spec Spec) (*Tree, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	g, err := newGroup(m, spec.CPUs)
	if err != nil {
		return nil, err
	}
	root, err := g.rootFor(spec.Root)
	if err != nil {
		return nil, err
	}
	var s *shape
	if spec.Topology == Best {
		s = best(g, root, spec.Op, spec.Progress)
	} else {
		s = build(g, spec.Topology, spec.Op, root)
	}
	return s.toTree(g, spec.Topology.String(), m.Name), nil
}

func (g *group) rootFor(id int) (int, error) {
	if id == AutoRoot {
		return g.cheapestRoot(), nil
	}
	r, ok := g.local(id)
	if !ok {
		return 0, fmt.Errorf("%w: root %d is not in the group", ErrGroup, id)
	}
	return r, nil
}

// build dispatches to the generators; all work on local indices.
func build(g *group, t Topology, op Op, root int) *shape {
	switch t {
	case Binary:
		return binary(g, root)
	case Fibonacci:
		return fibonacci(g, root)
	case Sequential:
		return sequential(g, root)
	case MST:
		return mst(g, root, false)
	case Cluster:
		return cluster(g, root)
	case Bad:
		return mst(g, root, true)
	case AdaptiveBase:
		return adaptive(g, root)
	case Adaptive:
		return optimiseAdaptive(g, adaptive(g, root))
	case Best:
		return best(g, root, op, nil)
	}
	panic(fmt.Sprintf("tree: build: unhandled topology %v", t))
}
