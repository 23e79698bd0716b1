package tree

import (
	"fmt"
	"math"
	"slices"

	"github.com/plexus-hpc/plexus/topo"
)

// AllreduceCosts are the costs that the allreduce simulation adds to the
// model's, which are per message (Smelt's model times cache-line
// messages): a vector of b bytes costs its sender Send + b·Byte, its
// receiver Recv + b·Byte, and Op·b more where the receiver folds it into
// its partial result.
type AllreduceCosts struct {
	Byte float64 // nanoseconds per byte sent, and again per byte received
	Op   float64 // nanoseconds per byte folded
}

// DefaultAllreduceCosts are a shared-memory copy of about 10 GB/s at each
// end and a fold of about 5 GB/s: orders of magnitude, enough to place
// the crossovers between algorithms, which the message costs dominate
// for the short vectors where the choice matters most.
var DefaultAllreduceCosts = AllreduceCosts{Byte: 0.1, Op: 0.2}

// SimulateAllreduce times an allreduce of bytes bytes with algorithm a
// over the members of the trees (which must have the same members) on
// model m, with the simulator's rules (Simulate): a member sends one
// message at a time, busy Send for each; a message can be received once
// its send has ended and it has spent the model's Latency in flight (zero
// when the model has none), and receiving it keeps the receiver busy Recv. In a
// round of doubling or Rabenseifner every member sends to its partner
// first and then receives the partner's message. Trees cost a reduction
// on the reduction tree (whose receives include the fold) plus a
// broadcast on the broadcast tree; two members exchange instead, which
// costs what doubling does. The latency is when the last member holds
// the result.
func SimulateAllreduce(m *topo.Model, reduce, bcast *Tree, a Algorithm, bytes int, c AllreduceCosts) (float64, error) {
	if bytes < 0 {
		return 0, fmt.Errorf("%w: allreduce of %d bytes", ErrArgument, bytes)
	}
	x, err := newAllreduceSim(m, reduce, bcast, c)
	if err != nil {
		return 0, err
	}
	return x.run(a, float64(bytes))
}

// finiteNonNeg reports whether v is a cost: finite and not negative.
func finiteNonNeg(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }

// PlanAllreduce chooses, for every length class up to maxBytes, the
// algorithm that SimulateAllreduce finds fastest for the shortest length
// of the class; ties go to the earlier algorithm of Algorithms, so
// AllreduceTrees wins where the model cannot tell them apart. It is pure
// and deterministic: the same inputs give the same plan.
func PlanAllreduce(m *topo.Model, reduce, bcast *Tree, maxBytes int, c AllreduceCosts) (AllreducePlan, error) {
	if maxBytes < 0 {
		return AllreducePlan{}, fmt.Errorf("%w: allreduce plan up to %d bytes", ErrArgument, maxBytes)
	}
	x, err := newAllreduceSim(m, reduce, bcast, c)
	if err != nil {
		return AllreducePlan{}, err
	}
	var p AllreducePlan
	for k := 0; k <= sizeClass(maxBytes); k++ {
		best, bestCost := AllreduceTrees, 0.0
		for i, a := range Algorithms() {
			cost, err := x.run(a, float64(classLow(k)))
			if err != nil {
				return AllreducePlan{}, err
			}
			if i == 0 || cost < bestCost {
				best, bestCost = a, cost
			}
		}
		p.ByClass = append(p.ByClass, best)
	}
	return p, nil
}

// allreduceSim holds a group's costs and the members' clocks.
type allreduceSim struct {
	g             *group
	reduce, bcast *Tree
	c             AllreduceCosts
	t, next       []float64 // when each member is next free
}

func newAllreduceSim(m *topo.Model, reduce, bcast *Tree, c AllreduceCosts) (*allreduceSim, error) {
	if reduce == nil || bcast == nil {
		return nil, fmt.Errorf("%w: allreduce needs a reduction and a broadcast tree", ErrInvalid)
	}
	if !finiteNonNeg(c.Byte) || !finiteNonNeg(c.Op) {
		return nil, fmt.Errorf("%w: allreduce costs %+v, want finite and non-negative", ErrArgument, c)
	}
	ids := reduce.Members()
	if !slices.Equal(ids, bcast.Members()) {
		return nil, fmt.Errorf("%w: reduction tree members %v, broadcast tree members %v", ErrGroup, ids, bcast.Members())
	}
	g, err := newGroup(m, ids)
	if err != nil {
		return nil, err
	}
	n := g.n()
	return &allreduceSim{g: g, reduce: reduce, bcast: bcast, c: c, t: make([]float64, n), next: make([]float64, n)}, nil
}

func (x *allreduceSim) run(a Algorithm, b float64) (float64, error) {
	clear(x.t)
	switch {
	case x.g.n() == 1:
		return 0, nil
	case a == AllreduceDoubling || (a == AllreduceTrees && x.g.n() == 2):
		return x.doubling(b), nil
	case a == AllreduceRabenseifner:
		return x.rabenseifner(b), nil
	case a == AllreduceTrees:
		return x.trees(b)
	}
	return 0, fmt.Errorf("tree: cannot simulate allreduce algorithm %d", int(a))
}

// pow2 is the largest power of two not above n ≥ 1.
func pow2(n int) int {
	p := 1
	for p*2 <= n {
		p *= 2
	}
	return p
}

func (x *allreduceSim) doubling(b float64) float64 {
	p := x.foldIn(b)
	for d := 1; d < p; d <<= 1 {
		x.round(p, d, b, true)
	}
	return x.foldOut(p, b)
}

// rabenseifner halves the exchanged part of the vector each round of the
// reduce-scatter (p/2 blocks of b/p bytes first, one block last) and
// doubles it back in the allgather.
func (x *allreduceSim) rabenseifner(b float64) float64 {
	p := x.foldIn(b)
	for d := p / 2; d >= 1; d /= 2 {
		x.round(p, d, b*float64(d)/float64(p), true)
	}
	for d := 1; d < p; d <<= 1 {
		x.round(p, d, b*float64(d)/float64(p), false)
	}
	return x.foldOut(p, b)
}

// round is one exchange between partners i and i^d among the first p
// members, of b bytes each way, folded on receipt when fold is set.
func (x *allreduceSim) round(p, d int, b float64, fold bool) {
	for i := range p {
		j := i ^ d
		sent := x.t[i] + x.send(i, j, b)
		arrived := x.t[j] + x.send(j, i, b) + x.g.flight(j, i)
		x.next[i] = max(sent, arrived) + x.recv(j, i, b, fold)
	}
	copy(x.t[:p], x.next[:p])
}

// foldIn has every member e ≥ p send its vector to member e-p, which
// folds it before its first round; it returns p.
func (x *allreduceSim) foldIn(b float64) int {
	p := pow2(x.g.n())
	for e := p; e < x.g.n(); e++ {
		h := e - p
		x.t[e] += x.send(e, h, b)
		x.t[h] = max(x.t[h], x.t[e]+x.g.flight(e, h)) + x.recv(e, h, b, true)
	}
	return p
}

// foldOut sends the result from member h to h+p after the last round and
// returns when the last member holds it.
func (x *allreduceSim) foldOut(p int, b float64) float64 {
	for e := p; e < x.g.n(); e++ {
		h := e - p
		x.t[h] += x.send(h, e, b)
		x.t[e] = max(x.t[e], x.t[h]+x.g.flight(h, e)) + x.recv(h, e, b, false)
	}
	return slices.Max(x.t)
}

func (x *allreduceSim) send(i, j int, b float64) float64 { return x.g.s[i][j] + b*x.c.Byte }

func (x *allreduceSim) recv(i, j int, b float64, fold bool) float64 {
	r := x.g.r[i][j] + b*x.c.Byte
	if fold {
		r += b * x.c.Op
	}
	return r
}

// trees is a reduction then a broadcast, each simulated by the tree
// simulator on costs that include the vector's bytes (and, going up, the
// fold).
func (x *allreduceSim) trees(b float64) (float64, error) {
	up := x.g.withBytes(b*x.c.Byte, b*(x.c.Byte+x.c.Op))
	down := x.g.withBytes(b*x.c.Byte, b*x.c.Byte)
	rs, err := fromTree(up, x.reduce)
	if err != nil {
		return 0, err
	}
	bs, err := fromTree(down, x.bcast)
	if err != nil {
		return 0, err
	}
	lat, _ := newSim(down).bcast(bs)
	return newSim(up).reduce(rs) + lat, nil
}

// withBytes returns a copy of g whose send costs are ds more and whose
// receive costs are dr more between distinct members; the flights are
// unchanged.
func (g *group) withBytes(ds, dr float64) *group {
	c := *g
	c.s, c.r = addOffDiagonal(g.s, ds), addOffDiagonal(g.r, dr)
	c.flights()
	return &c
}

func addOffDiagonal(m [][]float64, v float64) [][]float64 {
	out := make([][]float64, len(m))
	for i, row := range m {
		out[i] = slices.Clone(row)
		for j := range out[i] {
			if i != j {
				out[i][j] += v
			}
		}
	}
	return out
}
