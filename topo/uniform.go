package topo

import "fmt"

// Uniform returns the topology of an idealised machine: nodes NUMA nodes,
// each one package of perNode single-threaded cores with a shared L3 and
// private L2s, CPUs numbered node by node. It has no costs; give it some
// with Estimate. Examples, tests and what-if studies use it where no real
// machine is at hand.
func Uniform(nodes, perNode int) (*Model, error) {
	if nodes < 1 || perNode < 1 {
		return nil, fmt.Errorf("%w: uniform machine of %d nodes × %d CPUs", ErrInvalid, nodes, perNode)
	}
	if nodes > MaxNodes {
		return nil, fmt.Errorf("%w: uniform machine of %d NUMA nodes, more than topo.MaxNodes = %d", ErrTooLarge, nodes, MaxNodes)
	}
	if perNode > MaxCPUs/nodes { // the product could overflow: compare by division
		return nil, fmt.Errorf("%w: uniform machine of %d nodes × %d CPUs, more than topo.MaxCPUs = %d", ErrTooLarge, nodes, perNode, MaxCPUs)
	}
	m := &Model{Format: FormatVersion, Name: fmt.Sprintf("uniform-%dx%d", nodes, perNode),
		Provenance: Provenance{Source: "uniform"}}
	for n := range nodes {
		m.Nodes = append(m.Nodes, Node{OSIndex: n})
		for c := range perNode {
			id := n*perNode + c
			m.CPUs = append(m.CPUs, CPU{ID: id, Package: n, Core: id, Node: n, L2: id, L3: n})
		}
	}
	return m, nil
}

// TwoClass returns Uniform(nodes, perNode) with costs in two classes:
// local (same node) and remote, in nanoseconds.
func TwoClass(nodes, perNode int, sendLocal, recvLocal, sendRemote, recvRemote float64) (*Model, error) {
	m, err := Uniform(nodes, perNode)
	if err != nil {
		return nil, err
	}
	p := EstimateParams{SendLocal: sendLocal, SendRemote: sendRemote, RecvLocal: recvLocal,
		RecvRemote: recvRemote, SMTFactor: 1, RefDistance: 21}
	if err := Estimate(m, p); err != nil {
		return nil, err
	}
	return m, nil
}
