package bench

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/coll"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// Collective patterns over n pinned members. Member 0 is the root.
//
// bcast: the root broadcasts 8 bytes, then a zero-payload reduction comes
// back to it, so rounds do not overlap and the loop times one broadcast's
// latency plus the acknowledgement; reduce: an 8-byte sum to the root, then
// a zero-payload broadcast releases the members. Both are thus a reduction
// and a broadcast on the same tree, like the barrier, with a payload on
// one half. In a team of one process every broadcast, with or without a
// payload, is a release (each parent writes once, for all its children:
// coll's mailboxes), so the simulator predicts all three, and builds
// their trees, as tree.ReleaseBarrier.

// teamFor builds a team over cpus on the tree topology of model m, rooted
// at cpus[0], and returns its members in cpus order.
func teamFor(m *topo.Model, cpus []int, topology tree.Topology, op tree.Op) (*coll.Team, []*coll.Member, *tree.Tree, error) {
	t, err := tree.Build(m, tree.Spec{Topology: topology, Op: op, CPUs: cpus, Root: cpus[0]})
	if err != nil {
		return nil, nil, nil, err
	}
	team, err := coll.NewTeam(coll.Config{Broadcast: t, MaxMessage: 64})
	if err != nil {
		return nil, nil, nil, err
	}
	members, err := inOrder(team, cpus)
	if err != nil {
		return nil, nil, nil, err
	}
	return team, members, t, nil
}

// teamTree is the tree a team case of topology builds on model m over
// cpus (teamSetup's).
func teamTree(m *topo.Model, cpus []int, topology tree.Topology) (*tree.Tree, error) {
	return tree.Build(m, tree.Spec{Topology: topology, Op: tree.ReleaseBarrier, CPUs: cpus, Root: cpus[0]})
}

// teamSetup returns a setup for the team version of bench (barrier, bcast
// or reduce) and records the tree it built in *built.
func teamSetup(ctx context.Context, model func() *topo.Model, cpus []int, topology tree.Topology, bench string, built **tree.Tree) func() (body, func(), error) {
	op := tree.ReleaseBarrier // each bench is a reduction and a broadcast (a release in a team)
	return func() (body, func(), error) {
		team, members, t, err := teamFor(model(), cpus, topology, op)
		if err != nil {
			return nil, nil, err
		}
		*built = t
		f := map[string]func(*coll.Member, int) error{
			"barrier": func(mem *coll.Member, _ int) error { return mem.Barrier(ctx) },
			"bcast":   bcastRound(ctx),
			"reduce":  reduceRound(ctx),
		}[bench]
		return func(i, it int) error { return f(members[i], it) }, team.Close, nil
	}
}

func bcastRound(ctx context.Context) func(*coll.Member, int) error {
	return func(mem *coll.Member, it int) error {
		var buf [8]byte
		buf[0] = byte(it)
		n, err := mem.Broadcast(ctx, buf[:], len(buf))
		if err != nil {
			return err
		}
		if n != 8 || buf[0] != byte(it) {
			return fmt.Errorf("%w: broadcast %d delivered %d bytes, first %d", ErrOrder, it, n, buf[0])
		}
		return mem.Reduce(ctx, nil, nil, nil)
	}
}

func reduceRound(ctx context.Context) func(*coll.Member, int) error {
	return func(mem *coll.Member, it int) error {
		in, sum := [1]uint64{1}, [1]uint64{}
		err := coll.ReduceValues(ctx, mem, in[:], sum[:], func(a, b uint64) uint64 { return a + b })
		if err != nil {
			return err
		}
		if mem.IsRoot() && sum[0] != uint64(mem.Team().Size()) {
			return fmt.Errorf("bench: reduce %d summed %d, want %d", it, sum[0], mem.Team().Size())
		}
		_, err = mem.Broadcast(ctx, nil, 0)
		return err
	}
}

// dissemination times the team's dissemination barrier.
func dissemination(ctx context.Context, m *topo.Model, cpus []int) func() (body, func(), error) {
	return func() (body, func(), error) {
		team, members, _, err := teamFor(m, cpus, tree.Binary, tree.Barrier)
		if err != nil {
			return nil, nil, err
		}
		return func(i, _ int) error { return members[i].DisseminationBarrier(ctx) }, team.Close, nil
	}
}

// waiter is any of package baseline's barriers.
type waiter interface{ Wait() }

func baselineBarrier(mk func(n int) waiter, n int) func() (body, func(), error) {
	return func() (body, func(), error) {
		b := mk(n)
		return func(int, int) error { b.Wait(); return nil }, func() {}, nil
	}
}
