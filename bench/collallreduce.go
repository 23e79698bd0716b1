package bench

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/coll"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// The allreduce cases time an 8-byte sum on a team of n pinned members
// per algorithm: team-<algorithm> forced, and team-auto with the plan
// tree.PlanAllreduce makes on the size's model (hopcal.go; the choice that comm/collective
// makes between ranks). All run on the adaptive tree; the prediction is
// tree.SimulateAllreduce of the algorithm the team runs.

func allreduceCases(ctx context.Context, cfg *Config, n int, model func() *topo.Model) []*kase {
	cpus := cfg.CPUs[:n]
	var ks []*kase
	for _, a := range append([]tree.Algorithm{0}, tree.Algorithms()...) {
		name := "auto"
		if a != 0 {
			name = a.String()
		}
		k := &kase{bench: "allreduce", impl: "team-" + name, members: n}
		k.setup = allreduceSetup(ctx, model, cpus, a, k)
		ks = append(ks, k)
	}
	return ks
}

// allreduceSetup builds the team for algorithm a (0: the model's choice)
// and sets k.predict.
func allreduceSetup(ctx context.Context, model func() *topo.Model, cpus []int, a tree.Algorithm, k *kase) func() (body, func(), error) {
	return func() (body, func(), error) {
		m := model()
		t, err := tree.Build(m, tree.Spec{Topology: tree.Adaptive, Op: tree.Barrier, CPUs: cpus, Root: cpus[0]})
		if err != nil {
			return nil, nil, err
		}
		plan := tree.FixedAllreduce(a)
		if a == 0 {
			if plan, err = tree.PlanAllreduce(m, t, t, 8, tree.DefaultAllreduceCosts); err != nil {
				return nil, nil, err
			}
		}
		k.predict = func() (float64, error) {
			return tree.SimulateAllreduce(m, t, t, plan.For(8), 8, tree.DefaultAllreduceCosts)
		}
		team, err := coll.NewTeam(coll.Config{Broadcast: t, MaxMessage: 64, Allreduce: plan})
		if err != nil {
			return nil, nil, err
		}
		members, err := inOrder(team, cpus)
		if err != nil {
			return nil, nil, err
		}
		return func(i, it int) error { return allreduceRound(ctx, members[i], it) }, team.Close, nil
	}
}

// inOrder returns the team's members in cpus order.
func inOrder(team *coll.Team, cpus []int) ([]*coll.Member, error) {
	byCPU := map[int]*coll.Member{}
	for _, mem := range team.Members() {
		byCPU[mem.CPU()] = mem
	}
	members := make([]*coll.Member, len(cpus))
	for i, c := range cpus {
		if members[i] = byCPU[c]; members[i] == nil {
			return nil, fmt.Errorf("bench: team has no member for cpu %d", c)
		}
	}
	return members, nil
}

func allreduceRound(ctx context.Context, mem *coll.Member, it int) error {
	in, sum := [1]uint64{uint64(it)}, [1]uint64{}
	if err := coll.AllreduceValues(ctx, mem, in[:], sum[:], func(a, b uint64) uint64 { return a + b }); err != nil {
		return err
	}
	if want := uint64(it) * uint64(mem.Team().Size()); sum[0] != want {
		return fmt.Errorf("%w: allreduce %d summed %d, want %d", ErrOrder, it, sum[0], want)
	}
	return nil
}
