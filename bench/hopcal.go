package bench

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/coll"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// The model's costs are those of one message between two CPUs over a
// ring, with the machine otherwise exchanging pairwise (topo/measure).
// A hop inside a team costs more: the member's own work on the way
// (mailboxes, acknowledgements, waits) and whatever having all n members
// spin does to a hand-off, which grows with n (coll's BenchmarkHop;
// docs/benchmarks.md, "Many cores, fourth session").
// So before the team cases of each size of three or more, Coll times a
// barrier on a chain of the size's CPUs — a reference topology, not one
// of those compared — and charges the difference between its measured
// and predicted time, per hop, to every pair of those CPUs as extra
// latency; the team cases of that size build their trees (Best and
// Adaptive search on it) and predict on that model. The chain's row
// (bench "hop", impl "team-chain") shows the measurement and the
// prediction it corrects.

// sizeModel is the model one team size's cases use: the configured one
// until the size's chain has been timed, then the calibrated copy. Cases
// run in order, on one goroutine, so it needs no lock.
type sizeModel struct{ m *topo.Model }

func (s *sizeModel) get() *topo.Model { return s.m }

// chainTree is a chain over cpus, rooted at cpus[0].
func chainTree(cpus []int) *tree.Tree {
	t := &tree.Tree{Topology: "chain", Root: cpus[0], Children: map[int][]int{}}
	for i, c := range cpus {
		t.Children[c] = nil
		if i+1 < len(cpus) {
			t.Children[c] = []int{cpus[i+1]}
		}
	}
	return t
}

// hopCase is the calibration case of n members: it times a barrier on a
// chain and, once measured, sets sm to the model with the extra latency.
func hopCase(ctx context.Context, cfg *Config, n int, sm *sizeModel) *kase {
	cpus := cfg.CPUs[:n]
	chain := chainTree(cpus)
	k := &kase{bench: "hop", impl: "team-chain", members: n}
	k.setup = func() (body, func(), error) {
		team, err := coll.NewTeam(coll.Config{Broadcast: chain, MaxMessage: 64})
		if err != nil {
			return nil, nil, err
		}
		members, err := inOrder(team, cpus)
		if err != nil {
			return nil, nil, err
		}
		return func(i, _ int) error { return members[i].Barrier(ctx) }, team.Close, nil
	}
	k.predict = func() (float64, error) { return predict(cfg.Model, chain) }
	k.after = func(ns, predicted float64) error {
		extra := max(0, ns-predicted) / float64(2*(n-1))
		m, err := withExtraLatency(cfg.Model, cpus, extra)
		if err != nil {
			return fmt.Errorf("bench: hop calibration of %d members: %w", n, err)
		}
		sm.m = m
		return nil
	}
	return k
}

// withExtraLatency returns a copy of m whose latency between any two
// distinct CPUs of cpus is extra nanoseconds more (m's latency, or zero
// where it has none). m is not changed.
func withExtraLatency(m *topo.Model, cpus []int, extra float64) (*topo.Model, error) {
	c := *m
	n := m.N()
	lat := make([][]float64, n)
	for i := range lat {
		lat[i] = make([]float64, n)
		if m.Latency != nil {
			copy(lat[i], m.Latency.Mean[i])
		}
	}
	idx := make([]int, len(cpus))
	for k, id := range cpus {
		i, ok := m.Index(id)
		if !ok {
			return nil, fmt.Errorf("CPU %d is not in model %s", id, m.Name)
		}
		idx[k] = i
	}
	for _, i := range idx {
		for _, j := range idx {
			if i != j {
				lat[i][j] += extra
			}
		}
	}
	c.Latency = &topo.Costs{Mean: lat}
	return &c, nil
}
