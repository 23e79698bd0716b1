package collective

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// rankCounts are the world sizes each algorithm is checked on per
// transport: every count from 1 to 9 in-process, fewer over shared memory
// under -short.
func rankCounts(transport string) []int {
	if transport == "shm" && testing.Short() {
		return []int{2, 3, 5}
	}
	return []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
}

// Every algorithm, forced, gives every rank the fold of all inputs for
// every rank count, over the in-process twin and shared memory, with
// pieces of 256 bytes so that the longer buffers go in several.
func TestAllreduceAlgorithms(t *testing.T) {
	for _, tr := range []string{"twin", "shm"} {
		if makers[tr] == nil {
			continue
		}
		for _, a := range tree.Algorithms() {
			for _, n := range rankCounts(tr) {
				t.Run(fmt.Sprintf("transport=%s/%v/ranks=%d", tr, a, n), func(t *testing.T) {
					f := makers[tr](t, n)
					ctx := testCtx(t)
					comms := newComms(t, ctx, f.ws, Config{Model: Placement, MaxMessage: 256, Allreduce: a})
					if err := eachRank(n, func(r int) error { return allreduceOps(ctx, comms[r], a) }); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// allreduceOps checks sums of several lengths, a maximum and a floating
// point sum that every rank must see bit for bit alike.
func allreduceOps(ctx context.Context, c *Comm, a tree.Algorithm) error {
	if got := c.AllreducePlan().For(8); got != a {
		return fmt.Errorf("plan gives %v, %v forced", got, a)
	}
	for r := range roundsOf(20) {
		for _, words := range []int{0, 1, 3, 9, 40, 125} {
			if err := checkAllreduce(ctx, c, r, words); err != nil {
				return fmt.Errorf("round %d, %d words: %w", r, words, err)
			}
		}
		if err := checkMax(ctx, c, r); err != nil {
			return err
		}
		if err := checkFloatAgreement(ctx, c, r); err != nil {
			return err
		}
	}
	return nil
}

func checkMax(ctx context.Context, c *Comm, r int) error {
	in, out := []int64{int64((c.Rank()*7+r)%11 - 5), int64(-c.Rank())}, make([]int64, 2)
	if err := AllreduceValues(ctx, c, in, out, func(a, b int64) int64 { return max(a, b) }); err != nil {
		return err
	}
	want := []int64{math.MinInt64, 0}
	for k := range c.Size() {
		want[0] = max(want[0], int64((k*7+r)%11-5))
	}
	if !slices.Equal(out, want) {
		return fmt.Errorf("round %d: max %v, want %v", r, out, want)
	}
	return nil
}

// checkFloatAgreement sums values whose sum depends on the order of the
// additions, then has every rank compare its bits with rank 0's
// (broadcast): all must hold the same result.
func checkFloatAgreement(ctx context.Context, c *Comm, r int) error {
	in := []float64{1e16 * float64(1-2*(c.Rank()%2)), 0.1 * float64(c.Rank()+r), 1 / float64(c.Rank()+1)}
	out := make([]float64, len(in))
	if err := AllreduceValues(ctx, c, in, out, func(a, b float64) float64 { return a + b }); err != nil {
		return err
	}
	root := slices.Clone(out)
	if err := broadcastFloats(ctx, c, root); err != nil {
		return err
	}
	for i := range out {
		if math.Float64bits(out[i]) != math.Float64bits(root[i]) {
			return fmt.Errorf("round %d: rank %d summed %v, rank 0 %v", r, c.Rank(), out, root)
		}
	}
	return nil
}

func broadcastFloats(ctx context.Context, c *Comm, v []float64) error {
	buf := encode(v)
	if err := c.Broadcast(ctx, 0, buf); err != nil {
		return err
	}
	decode(buf, v)
	return nil
}

// uniformRanks is a given model of n ranks, every pair alike.
func uniformRanks(n int) *topo.Model {
	m := &topo.Model{Format: topo.FormatVersion, Name: "uniform", Nodes: []topo.Node{{OSIndex: 0}},
		Provenance: topo.Provenance{Source: "file"}}
	for r := range n {
		m.CPUs = append(m.CPUs, topo.CPU{ID: r, Core: r, L2: -1, L3: -1})
	}
	m.Send, m.Recv = topo.NewCosts(n, false), topo.NewCosts(n, false)
	for i := range n {
		for j := range n {
			if i != j {
				m.Send.Mean[i][j], m.Recv.Mean[i][j] = 30, 90
			}
		}
	}
	return m
}

// Without Allreduce set, rank 0 plans on the model the trees were built
// on, and every rank gets that plan: on uniform ranks, doubling for short
// vectors and Rabenseifner for the longest pieces, as the simulator says.
func TestAllreducePlanFromModel(t *testing.T) {
	const n = 4
	f := twinWorlds(t, n)
	ctx := testCtx(t)
	m := uniformRanks(n)
	comms := newComms(t, ctx, f.ws, Config{Given: m})
	reduce, bcast := comms[0].Trees()
	want, err := tree.PlanAllreduce(m, reduce, bcast, DefaultMaxMessage, tree.DefaultAllreduceCosts)
	if err != nil {
		t.Fatal(err)
	}
	for r, c := range comms {
		if got := c.AllreducePlan(); !slices.Equal(got.ByClass, want.ByClass) {
			t.Errorf("rank %d: plan %v, want %v", r, got, want)
		}
	}
	if a := want.For(8); a != tree.AllreduceDoubling {
		t.Errorf("8 bytes on uniform ranks: %v, want doubling", a)
	}
	if a := want.For(DefaultMaxMessage); a != tree.AllreduceRabenseifner {
		t.Errorf("%d bytes on uniform ranks: %v, want rabenseifner", DefaultMaxMessage, a)
	}
	if err := eachRank(n, func(r int) error { return allreduceOps(ctx, comms[r], tree.AllreduceDoubling) }); err != nil {
		t.Fatal(err)
	}
}

func TestAllreduceConfig(t *testing.T) {
	cfg := Config{Allreduce: 9}
	if err := cfg.Validate(); err == nil {
		t.Error("allreduce algorithm 9 validated")
	}
	var w *comm.World
	if _, err := New(context.Background(), w, Config{Allreduce: -1}); err == nil {
		t.Error("New accepted allreduce algorithm -1")
	}
}

// planAllreduce: a forced algorithm wins; a crowded host keeps the trees
// whatever the model says; otherwise the model's choice.
func TestPlanAllreduceRules(t *testing.T) {
	m := uniformRanks(4)
	tr, err := tree.Build(m, tree.Spec{Topology: tree.Sequential, Root: 0})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		forced  tree.Algorithm
		crowded bool
		want    tree.Algorithm
	}{
		{"model", 0, false, tree.AllreduceDoubling},
		{"crowded", 0, true, tree.AllreduceTrees},
		{"forced", tree.AllreduceRabenseifner, false, tree.AllreduceRabenseifner},
		{"forced on a crowded host", tree.AllreduceDoubling, true, tree.AllreduceDoubling},
	} {
		p, err := planAllreduce(m, tr, tr, Config{MaxMessage: 1024, Allreduce: tc.forced}, tc.crowded)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.For(8); got != tc.want {
			t.Errorf("%s: plan %v gives %v for 8 bytes, want %v", tc.name, p, got, tc.want)
		}
	}
}

// AllreduceValues allocates nothing once the communicator has run it for
// an element type (valuefold.go): a fresh fold per call escaped to the
// heap.
func TestAllreduceValuesAllocatesNothing(t *testing.T) {
	f := twinWorlds(t, 1)
	ctx := testCtx(t)
	c := newComms(t, ctx, f.ws, Config{Model: Placement})[0]
	in, out := []float64{1, 2}, []float64{0, 0}
	sum := func(a, b float64) float64 { return a + b }
	if allocs := testing.AllocsPerRun(100, func() {
		if err := AllreduceValues(ctx, c, in, out, sum); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("%v allocations per call, want 0", allocs)
	}
}
