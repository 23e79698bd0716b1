package survey

import (
	"fmt"
	"math/rand/v2"

	"github.com/plexus-hpc/plexus/tree"
)

// Gap is Best's broadcast latency on one random group against the exact
// optimum for the same root.
type Gap struct {
	Machine     string
	CPUs        []int
	Root        int
	Best, Exact float64
}

// Ratio is Best/Exact (1 means Best found the optimum).
func (g Gap) Ratio() float64 { return g.Best / g.Exact }

// ExactGaps draws groups random groups of size k from m (seeded, so the
// survey is repeatable), finds the optimal broadcast tree with tree.Exact
// and compares Best built for the same root.
func ExactGaps(m Machine, k, groups int, seed uint64) ([]Gap, error) {
	if m.Model.N() < k {
		return nil, nil
	}
	rng := rand.New(rand.NewPCG(seed, uint64(m.Model.N())))
	var out []Gap
	for range groups {
		ids := m.Model.IDs()
		rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		g, err := gap(m, ids[:k])
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

func gap(m Machine, cpus []int) (Gap, error) {
	opt, lat, err := tree.Exact(m.Model, cpus, tree.AutoRoot)
	if err != nil {
		return Gap{}, fmt.Errorf("survey: %s: exact: %w", m.Name, err)
	}
	b, err := tree.Build(m.Model, tree.Spec{Topology: tree.Best, Op: tree.Bcast, CPUs: cpus, Root: opt.Root})
	if err != nil {
		return Gap{}, fmt.Errorf("survey: %s: best: %w", m.Name, err)
	}
	r, err := tree.Simulate(m.Model, b, tree.Bcast)
	if err != nil {
		return Gap{}, err
	}
	return Gap{Machine: m.Name, CPUs: cpus, Root: opt.Root, Best: r.Latency, Exact: lat}, nil
}
