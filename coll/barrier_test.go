package coll

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/tree"
)

// checkBarrier runs barrier rounds; no member may leave round r before
// every member has arrived in it.
func checkBarrier(t *testing.T, team *Team, barrier func(m *Member, ctx context.Context) error) {
	var arrived atomic.Int64
	n := int64(team.Size())
	run(t, team, func(ctx context.Context, m *Member) error {
		for r := range int64(rounds(1000)) {
			arrived.Add(1)
			if err := barrier(m, ctx); err != nil {
				return err
			}
			if a := arrived.Load(); a < n*(r+1) {
				return fmt.Errorf("round %d: member %d left with %d of %d arrivals", r, m.CPU(), a, n*(r+1))
			}
		}
		return nil
	})
}

func TestBarrier(t *testing.T) {
	eachTeam(t, func(t *testing.T, team *Team) {
		checkBarrier(t, team, (*Member).Barrier)
	})
}

func TestDisseminationBarrier(t *testing.T) {
	for _, tr := range transports {
		for _, n := range []int{1, 2, 3, 4, 5, 7, 8} {
			t.Run(fmt.Sprintf("%s/members=%d", tr.name, n), func(t *testing.T) {
				team := newTeam(t, Config{Broadcast: buildTree(t, n, tree.Binary), transport: tr.make()})
				checkBarrier(t, team, (*Member).DisseminationBarrier)
			})
		}
	}
}

// A straggler holds everyone in the barrier.
func TestBarrierWaitsForStraggler(t *testing.T) {
	team := newTeam(t, Config{Broadcast: buildTree(t, 4, tree.Adaptive)})
	var done atomic.Int32
	last := team.Members()[3].CPU()
	run(t, team, func(ctx context.Context, m *Member) error {
		if m.CPU() == last {
			time.Sleep(20 * time.Millisecond)
			done.Store(1)
		}
		if err := m.Barrier(ctx); err != nil {
			return err
		}
		if done.Load() == 0 {
			return fmt.Errorf("member %d left before the straggler arrived", m.CPU())
		}
		return nil
	})
}

// Separate reduction and broadcast trees (tree.BestPair) carry every
// operation, including on edges one tree uses up and the other down.
func TestBestPairTrees(t *testing.T) {
	for _, tr := range transports {
		for _, n := range []int{3, 8, 12} {
			t.Run(fmt.Sprintf("%s/members=%d", tr.name, n), func(t *testing.T) {
				red, bc, err := tree.BestPair(synthModel(n), tree.Spec{Root: tree.AutoRoot})
				if err != nil {
					t.Fatal(err)
				}
				team := newTeam(t, Config{Broadcast: bc, Reduce: red, transport: tr.make()})
				mixed(t, team)
			})
		}
	}
}

// mixed interleaves every collective, checking each result.
func mixed(t *testing.T, team *Team) {
	checkBarrier(t, team, func(m *Member, ctx context.Context) error {
		if err := m.Barrier(ctx); err != nil {
			return err
		}
		var got [1]int64
		err := AllreduceValues(ctx, m, []int64{int64(m.CPU())}, got[:], sum)
		if want := int64(team.Size() * (team.Size() - 1) / 2); err == nil && got[0] != want {
			err = fmt.Errorf("allreduce %d, want %d", got[0], want)
		}
		if err != nil {
			return err
		}
		if err := ReduceValues(ctx, m, []int64{1}, make([]int64, 1), sum); err != nil {
			return err
		}
		var buf [4]byte
		_, err = m.Broadcast(ctx, buf[:], 3)
		return err
	})
}

// Two teams over the same CPUs run at once without crosstalk.
func TestTwoTeams(t *testing.T) {
	a := newTeam(t, Config{Broadcast: buildTree(t, 5, tree.Adaptive)})
	b := newTeam(t, Config{Broadcast: buildTree(t, 5, tree.Binary), transport: newTwin(twinConfig{})})
	for name, team := range map[string]*Team{"ring": a, "twin": b} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mixed(t, team)
		})
	}
}

// TestPairBarrierOneHop: in a team of two the root's notification leaves
// as soon as it enters the barrier, without waiting for the other
// member's, so the two cross and the barrier is one hop, not a round
// trip. The other member plays its side by hand: it waits for the root's
// notification before it sends its own, which would deadlock (until the
// deadline) a root that waited first.
func TestPairBarrierOneHop(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			team := newTeam(t, Config{Broadcast: buildTree(t, 2, topologies[0]), transport: tr.make()})
			const barriers = 5
			run(t, team, func(ctx context.Context, m *Member) error {
				for range barriers {
					if m.IsRoot() {
						if err := m.Barrier(ctx); err != nil {
							return err
						}
						continue
					}
					if err := pairSideByHand(ctx, m); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}

// pairSideByHand is the non-root side of a pair barrier, in the reverse
// order: take the root's notification first, then send one back.
func pairSideByHand(ctx context.Context, m *Member) error {
	wait, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if m.team.signals {
		if err := m.await(wait, m.bparent); err != nil {
			return fmt.Errorf("no signal from the root before this member's: %w", err)
		}
		return m.raise(m.rparent)
	}
	n, err := m.recv(wait, m.bparent, m.rx)
	if err != nil || n != 0 {
		return fmt.Errorf("no zero-length message from the root before this member's: %d bytes, %w", n, err)
	}
	return m.send(ctx, m.rparent, nil)
}
