package tree

import (
	"fmt"
	"sort"
	"strings"

	"github.com/plexus-hpc/plexus/topo"
)

// Op is a collective operation the simulator can time.
type Op int

// The operations. A barrier is a reduction followed by a broadcast on the
// same tree (Smelt's two-line barrier). ReleaseBarrier is the barrier of
// coll's in-process teams: a reduction, then each parent releases all its
// children at once through one word they read, rather than one message
// (or signal) per child in turn.
const (
	Bcast Op = 1 + iota
	Reduce
	Barrier
	ReleaseBarrier
)

// Ops returns Smelt's operations in display order, in a new slice: the
// ones every comparison and survey shows. ReleaseBarrier is left out.
func Ops() []Op { return []Op{Bcast, Reduce, Barrier} }

// allOps is every operation the simulator times.
func allOps() []Op { return append(Ops(), ReleaseBarrier) }

// String returns the operation's CLI name.
func (o Op) String() string {
	switch o {
	case Bcast:
		return "bcast"
	case Reduce:
		return "reduce"
	case Barrier:
		return "barrier"
	case ReleaseBarrier:
		return "release-barrier"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// ParseOp parses "bcast", "reduce", "barrier" or "release-barrier".
func ParseOp(s string) (Op, error) {
	for _, o := range allOps() {
		if strings.EqualFold(s, o.String()) {
			return o, nil
		}
	}
	return 0, fmt.Errorf("%w %q (want bcast, reduce, barrier or release-barrier)", ErrOp, s)
}

// checkOp refuses an Op that is none of the operations (such as the zero
// Op): the simulator has no timing for it.
func checkOp(op Op) error {
	if op < Bcast || op > ReleaseBarrier {
		return fmt.Errorf("%w %v (want bcast, reduce, barrier or release-barrier)", ErrOp, op)
	}
	return nil
}

// Result is a simulated latency.
type Result struct {
	Op Op
	// Latency is in the model's unit (nanoseconds).
	Latency float64
	// Last is the CPU that finishes last: the last to be activated by a
	// broadcast (also for a barrier), the root for a reduction.
	Last int
}

// Simulate times op on tree t over model m, using the model's send and
// receive costs and its latency under load (Latency; zero when the model
// has none), which every message spends in flight between the end of its
// send and the start of its receive:
//
//   - broadcast: a node sends to its children in order, busy Send[p][c] for
//     each; a child is active Latency[p][c] + Recv[p][c] after its send
//     ends; the latency is the last activation.
//   - reduction: a node waits for all children; a child's message arrives
//     Send[c][p] + Latency[c][p] after the child completes; the node
//     receives the messages serially in arrival order (Recv[c][p] each),
//     then sends once to its parent; the latency is when the root has
//     received all.
//   - barrier: a reduction then a broadcast.
//   - release barrier: a reduction, then a release in which every child is
//     active Send[p][c] + Latency[p][c] + Recv[p][c] after its parent,
//     siblings in parallel: one write of the parent's that all its
//     children read.
func Simulate(m *topo.Model, t *Tree, op Op) (Result, error) {
	if err := checkOp(op); err != nil {
		return Result{}, err
	}
	g, err := newGroup(m, t.Members())
	if err != nil {
		return Result{}, err
	}
	s, err := fromTree(g, t)
	if err != nil {
		return Result{}, err
	}
	x := newSim(g)
	lat, last := x.run(s, op)
	return Result{Op: op, Latency: lat, Last: g.ids[last]}, nil
}

// sim holds scratch space so repeated simulations of one group do not
// allocate. It is not safe for concurrent use.
type sim struct {
	g     *group
	at    []float64 // broadcast activation / reduction completion per node
	order []int
	arr   []arrival
}

type arrival struct {
	t     float64
	child int
}

func newSim(g *group) *sim {
	return &sim{g: g, at: make([]float64, g.n()), order: make([]int, 0, g.n())}
}

func (x *sim) run(s *shape, op Op) (float64, int) {
	switch op {
	case Bcast:
		return x.bcast(s)
	case Reduce:
		return x.reduce(s), s.root
	case Barrier:
		r := x.reduce(s)
		b, last := x.bcast(s)
		return r + b, last
	case ReleaseBarrier:
		r := x.reduce(s)
		b, last := x.release(s)
		return r + b, last
	}
	panic(fmt.Sprintf("tree: simulate: bad op %d", int(op)))
}

func (x *sim) latency(s *shape, op Op) float64 {
	lat, _ := x.run(s, op)
	return lat
}

// bcast returns the broadcast latency and the last node activated; x.at
// holds every node's activation time afterwards.
func (x *sim) bcast(s *shape) (float64, int) {
	g := x.g
	x.at[s.root] = 0
	stack := append(x.order[:0], s.root)
	lat, last := 0.0, s.root
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t := x.at[p]
		for _, c := range s.kids[p] {
			t += g.s[p][c]
			x.at[c] = t + g.fr[p][c]
			if x.at[c] > lat {
				lat, last = x.at[c], c
			}
			stack = append(stack, c)
		}
	}
	x.order = stack
	return lat, last
}

// release returns the latency of a release down s and the last node
// released: each child is active its send, flight and receive after its
// parent, whatever its siblings. x.at holds every node's activation time
// afterwards.
func (x *sim) release(s *shape) (float64, int) {
	g := x.g
	x.at[s.root] = 0
	order := preorder(s, x.order[:0])
	lat, last := 0.0, s.root
	for _, p := range order {
		for _, c := range s.kids[p] {
			x.at[c] = x.at[p] + g.s[p][c] + g.fr[p][c]
			if x.at[c] > lat {
				lat, last = x.at[c], c
			}
		}
	}
	x.order = order
	return lat, last
}

// reduce returns when the root has received every child's message; x.at
// holds each node's completion time afterwards.
func (x *sim) reduce(s *shape) float64 {
	g := x.g
	order := preorder(s, x.order[:0])
	for i := len(order) - 1; i >= 0; i-- {
		u := order[i]
		arr := x.arr[:0]
		for _, c := range s.kids[u] {
			arr = append(arr, arrival{x.at[c] + g.sf[c][u], c})
		}
		sortArrivals(arr)
		t := 0.0
		for _, a := range arr {
			t = max(t, a.t) + g.r[a.child][u]
		}
		x.at[u], x.arr = t, arr
	}
	x.order = order
	return x.at[s.root]
}

func preorder(s *shape, buf []int) []int {
	buf = append(buf, s.root)
	for i := 0; i < len(buf); i++ {
		buf = append(buf, s.kids[buf[i]]...)
	}
	return buf
}

// sortArrivals orders by arrival time; equal times keep send order, so the
// simulation is deterministic.
func sortArrivals(a []arrival) {
	if len(a) < 2 {
		return
	}
	sort.SliceStable(a, func(i, j int) bool { return a[i].t < a[j].t })
}
