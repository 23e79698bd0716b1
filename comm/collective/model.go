package collective

import (
	"fmt"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// A model of the ranks is a topo.Model whose "CPUs" are the ranks (CPU id
// = rank) and whose NUMA nodes are the hosts, so that the tree generator,
// written for the cores of one machine, plans trees between processes:
// Cluster groups ranks by host, Adaptive and Best simulate the measured
// or placement costs.
//
// The simulator activates a child Send + Recv after its parent starts
// sending (tree.Simulate), so a measured one-way time d = rtt/2 splits
// into Send = the time the sender's Send call took (capped at d) and
// Recv = d - Send. Placement splits its one-way cost a quarter to the
// sender, as on the machines Smelt measured, where receiving costs about
// three times sending.

// hello is what every rank tells rank 0 at start: its host and, for
// Measure, the pairs it timed (the lower rank of each pair times it).
type hello struct {
	Host    string    `json:"host"`
	Crowded bool      `json:"crowded,omitempty"` // comm.World.Crowded
	Machine string    `json:"machine,omitempty"` // comm.World.Machine
	CPUs    []int     `json:"cpus,omitempty"`    // affinity.ProcessCPUs
	Peers   []int     `json:"peers,omitempty"`
	Send    []float64 `json:"send,omitempty"` // ns, per peer
	RTT     []float64 `json:"rtt,omitempty"`  // ns, per peer
}

// plan is rank 0's answer: the trees and Allreduce's algorithm per
// length, or why there are none.
type plan struct {
	Reduce    *tree.Tree         `json:"reduce,omitempty"`
	Bcast     *tree.Tree         `json:"bcast,omitempty"`
	Allreduce tree.AllreducePlan `json:"allreduce"`
	// Crowded: some rank's machine runs more ranks than CPUs, where a
	// Barrier on the collective area gathers and releases (posts.go).
	Crowded bool `json:"crowded,omitempty"`
	// TwoLevels: Barrier, Broadcast and Allreduce run in two levels
	// across hosts though Config.Hierarchy is off (apart.go).
	TwoLevels bool   `json:"twoLevels,omitempty"`
	Err       string `json:"err,omitempty"`
}

// rankModel builds the model of the ranks from their hellos (indexed by
// rank) under cfg's model source. It is pure.
func rankModel(hs []hello, cfg Config) (*topo.Model, error) {
	n := len(hs)
	m := &topo.Model{Format: topo.FormatVersion, Name: fmt.Sprintf("ranks%d", n),
		Provenance: topo.Provenance{Source: "measured", Notes: "ranks of a plexus job; nodes are hosts"}}
	hosts := map[string]int{}
	for r, h := range hs {
		node, ok := hosts[h.Host]
		if !ok {
			node = len(m.Nodes)
			hosts[h.Host] = node
			m.Nodes = append(m.Nodes, topo.Node{OSIndex: node})
		}
		m.CPUs = append(m.CPUs, topo.CPU{ID: r, Package: node, Core: r, Node: node, L2: -1, L3: -1})
	}
	m.Send, m.Recv = topo.NewCosts(n, false), topo.NewCosts(n, false)
	if cfg.Model == Placement || anyCrowded(hs) {
		m.Provenance.Source, m.Provenance.CostsEstimated = "placement", true
		placeCosts(m, cfg)
	} else if err := measuredCosts(m, hs); err != nil {
		return nil, err
	}
	return m, m.Validate()
}

// anyCrowded reports whether a rank runs on a crowded machine (more ranks
// than CPUs). There a round trip times the scheduler as much as the link
// between two ranks: on namespace hosts sharing two CPUs, pairs on one
// host timed slower than pairs across, and the trees crossed between the
// hosts on every edge. The hosts alone are then the better guide.
func anyCrowded(hs []hello) bool {
	for _, h := range hs {
		if h.Crowded {
			return true
		}
	}
	return false
}

// placeCosts fills the costs from the hosts alone.
func placeCosts(m *topo.Model, cfg Config) {
	for i := range m.CPUs {
		for j := range m.CPUs {
			d := cfg.OtherHost
			switch {
			case i == j:
				continue
			case m.SameNode(i, j):
				d = cfg.SameHost
			}
			m.Send.Mean[i][j], m.Recv.Mean[i][j] = d/4, d-d/4
		}
	}
}

// measuredCosts fills the costs from the timed pairs, the same both ways.
func measuredCosts(m *topo.Model, hs []hello) error {
	n := len(hs)
	timed := 0
	for i, h := range hs {
		if len(h.Send) != len(h.Peers) || len(h.RTT) != len(h.Peers) {
			return fmt.Errorf("collective: rank %d reported %d peers, %d send and %d round-trip times",
				i, len(h.Peers), len(h.Send), len(h.RTT))
		}
		for k, j := range h.Peers {
			if j <= i || j >= n {
				return fmt.Errorf("collective: rank %d reported a time for rank %d", i, j)
			}
			d := h.RTT[k] / 2
			s := min(h.Send[k], d)
			m.Send.Mean[i][j], m.Send.Mean[j][i] = s, s
			m.Recv.Mean[i][j], m.Recv.Mean[j][i] = d-s, d-s
			timed++
		}
	}
	if timed != n*(n-1)/2 {
		return fmt.Errorf("collective: %d of the %d pairs of ranks were timed", timed, n*(n-1)/2)
	}
	return nil
}

// buildTrees plans the reduction and broadcast trees on m.
func buildTrees(m *topo.Model, cfg Config) (reduce, bcast *tree.Tree, err error) {
	spec := tree.Spec{Topology: cfg.Topology, Root: cfg.Root}
	if cfg.Topology == tree.Best {
		return tree.BestPair(m, spec)
	}
	t, err := tree.Build(m, spec)
	return t, t, err
}

// crowdedTopology is the topology for ranks that all share one crowded
// host (more ranks than CPUs), when cfg leaves the choice to the costs
// (Adaptive, AdaptiveBase or Best): the flat tree, whose every member is
// one hop from the root. There every hop waits until the rank it goes to
// gets a CPU, which the costs measured between ranks do not show (they
// change with the scheduler from pair to pair: Best may build a chain),
// so the fewest hops in a row win: on 4 ranks sharing 2 CPUs the flat
// tree's barrier and allreduce took about two thirds of Best's or the
// binary tree's time (docs/benchmarks.md, "Flat trees on a crowded host"
// in section "Shared memory on a new host", 2026-11-25). It reports false
// to keep cfg's topology.
func crowdedTopology(hs []hello, cfg Config) bool {
	switch cfg.Topology {
	case tree.Adaptive, tree.AdaptiveBase, tree.Best:
	default:
		return false
	}
	for _, h := range hs {
		if !h.Crowded || h.Host != hs[0].Host {
			return false
		}
	}
	return len(hs) > 2
}
