package coll

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// synthModel is an n-CPU machine of two NUMA nodes, CPU ids 0..n-1, on
// which crossing nodes costs more: enough for tree.Build to make
// non-trivial trees.
func synthModel(n int) *topo.Model {
	m := &topo.Model{Name: fmt.Sprintf("synth%d", n), Nodes: []topo.Node{{OSIndex: 0}, {OSIndex: 1}}}
	half := (n + 1) / 2
	for id := range n {
		m.CPUs = append(m.CPUs, topo.CPU{ID: id, Package: id / half, Core: id, Node: id / half, L2: id, L3: id / half})
	}
	m.Send, m.Recv = topo.NewCosts(n, false), topo.NewCosts(n, false)
	for i := range n {
		for j := range n {
			switch {
			case i == j:
			case i/half == j/half:
				m.Send.Mean[i][j], m.Recv.Mean[i][j] = 25+float64((i+j)%3), 90
			default:
				m.Send.Mean[i][j], m.Recv.Mean[i][j] = 80+float64((i*j)%5), 280
			}
		}
	}
	return m
}

func buildTree(tb testing.TB, n int, top tree.Topology) *tree.Tree {
	tb.Helper()
	t, err := tree.Build(synthModel(n), tree.Spec{Topology: top, Root: tree.AutoRoot})
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// transports are the ones every operation is tested on; nil is the
// default rings. "messages" is the rings without their signals, so that
// barriers there take the zero-length-message path.
var transports = []struct {
	name string
	make func() transport
}{
	{"twin", func() transport { return newTwin(twinConfig{Slots: 8}) }},
	{"ring", func() transport { return nil }},
	{"messages", func() transport { return withoutSignals(rings(DefaultSlots), nil) }},
}

// messageLink is a link with its signals hidden: a transport that has
// none.
type messageLink struct {
	Link
	trySender
}

// withoutSignals wraps tr's links between members a and b in messageLink
// when hide(a, b) is true, or always when hide is nil.
func withoutSignals(tr transport, hide func(a, b int) bool) transport {
	return func(a, b int) (Link, Link, error) {
		x, y, err := tr(a, b)
		if err != nil || (hide != nil && !hide(a, b)) {
			return x, y, err
		}
		return messageLink{x, x.(trySender)}, messageLink{y, y.(trySender)}, nil
	}
}

var topologies = []tree.Topology{tree.Adaptive, tree.Binary, tree.Sequential, tree.Fibonacci}

// sizes are the team sizes tested; trees larger than the machine run
// unpinned.
func sizes() []int {
	if testing.Short() {
		return []int{2, 5, 8}
	}
	return []int{1, 2, 3, 5, 8, 13}
}

// eachTeam runs f on a fresh team for every transport, topology and size.
func eachTeam(t *testing.T, f func(t *testing.T, team *Team)) {
	for _, tr := range transports {
		for _, top := range topologies {
			for _, n := range sizes() {
				t.Run(fmt.Sprintf("%s/%v/members=%d", tr.name, top, n), func(t *testing.T) {
					f(t, newTeam(t, Config{Broadcast: buildTree(t, n, top), transport: tr.make()}))
				})
			}
		}
	}
}

func newTeam(tb testing.TB, cfg Config) *Team {
	tb.Helper()
	team, err := NewTeam(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return team
}

// run runs f on every member under a deadline, so that a hang fails the
// test instead of stalling it.
func run(t *testing.T, team *Team, f func(ctx context.Context, m *Member) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := team.Run(ctx, func(m *Member) error { return f(ctx, m) }); err != nil {
		t.Fatal(err)
	}
}

// rounds scales a stress test's length down under -short.
func rounds(full int) int {
	if testing.Short() {
		return max(1, full/10)
	}
	return full
}
