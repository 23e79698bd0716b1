package measure

import (
	"fmt"
	"time"

	"github.com/plexus-hpc/plexus/topo"
)

// Merge returns a copy of m restricted to the CPUs of r, in r's order, with
// r's send and receive costs, its latency under load (nil when r has none)
// and provenance "measured". NUMA nodes without
// a measured CPU are dropped, and package, core and cache ids renumbered
// densely, so that the copy is a complete model of the measured CPUs. m is
// not modified. It is an error if r measured a CPU that m does not have.
func Merge(m *topo.Model, r *Result) (*topo.Model, error) {
	if len(r.CPUs) != len(r.Send.Mean) || len(r.CPUs) != len(r.Recv.Mean) {
		return nil, fmt.Errorf("measure: result has %d CPUs but %d×%d matrices", len(r.CPUs), len(r.Send.Mean), len(r.Recv.Mean))
	}
	out, err := restrict(m, r.CPUs)
	if err != nil {
		return nil, err
	}
	out.Send, out.Recv = cloneCosts(r.Send), cloneCosts(r.Recv)
	if r.Latency != nil {
		out.Latency = cloneCosts(r.Latency)
	}
	p := &out.Provenance
	p.Source = "measured"
	p.Date = r.Start.Format(time.RFC3339)
	p.CostsEstimated = false
	p.FreqGHz = 0
	p.Notes = fmt.Sprintf("plexus pairwise benchmark: %d reps, batch %d, largest %.0f%% dropped, %s",
		r.Config.Reps, r.Config.Batch, 100*DropFrac, r.Elapsed.Round(time.Millisecond))
	if r.Latency != nil {
		p.Notes += fmt.Sprintf("; latency under load from %d loaded rounds in %s",
			rounds(r.Config.Reps)*len(tournament(len(r.CPUs))), r.LoadedElapsed.Round(time.Microsecond))
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("measure: merged model: %w", err)
	}
	return out, nil
}

// restrict copies m's CPUs with OS numbers ids, in that order, with the
// nodes they use and those nodes' distances; costs are left nil.
func restrict(m *topo.Model, ids []int) (*topo.Model, error) {
	out := &topo.Model{Format: m.Format, Name: m.Name, Provenance: m.Provenance}
	var missing []int
	nodes := newDense()
	pkgs, cores, l2, l3 := newDense(), newDense(), newDense(), newDense()
	for _, id := range ids {
		i, ok := m.Index(id)
		if !ok {
			missing = append(missing, id)
			continue
		}
		c := m.CPUs[i]
		c.Node, c.Package, c.Core = nodes.id(c.Node), pkgs.id(c.Package), cores.id(c.Core)
		c.L2, c.L3 = l2.id(c.L2), l3.id(c.L3)
		out.CPUs = append(out.CPUs, c)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("measure: measured CPUs %v are not in model %s (its CPUs are %v)", missing, m.Name, m.IDs())
	}
	for _, old := range nodes.order {
		out.Nodes = append(out.Nodes, m.Nodes[old])
	}
	if m.Distance != nil {
		out.Distance = make([][]float64, len(nodes.order))
		for a, oa := range nodes.order {
			for _, ob := range nodes.order {
				out.Distance[a] = append(out.Distance[a], m.Distance[oa][ob])
			}
		}
	}
	return out, nil
}

// dense renumbers ids 0, 1, ... in order of first appearance; -1 (unknown)
// stays -1.
type dense struct {
	ids   map[int]int
	order []int // old id of each new id
}

func newDense() *dense { return &dense{ids: map[int]int{}} }

func (d *dense) id(old int) int {
	if old < 0 {
		return old
	}
	if n, ok := d.ids[old]; ok {
		return n
	}
	d.ids[old] = len(d.order)
	d.order = append(d.order, old)
	return d.ids[old]
}

func cloneCosts(c *topo.Costs) *topo.Costs {
	out := topo.NewCosts(len(c.Mean), c.SD != nil)
	for i := range c.Mean {
		copy(out.Mean[i], c.Mean[i])
		if c.SD != nil {
			copy(out.SD[i], c.SD[i])
		}
	}
	return out
}
