package coll

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/tree"
)

// Children released through their parent's release word are woken from
// their doors when they sleep: with budgets far shorter than a wake-up
// and members late at random, every barrier still waits for every
// member, and none hangs.
func TestReleaseWordWakesSleepers(t *testing.T) {
	for _, top := range []tree.Topology{tree.Sequential, tree.Binary} {
		t.Run(top.String(), func(t *testing.T) {
			team := newTeam(t, Config{Broadcast: buildTree(t, 5, top), policy: &shortBudget})
			for _, m := range team.Members() {
				if m.rel == nil || (m.relFrom == nil) != m.IsRoot() {
					t.Fatalf("member %d: release word %v, parent's %v", m.CPU(), m.rel, m.relFrom)
				}
			}
			var arrived atomic.Int64
			n := int64(team.Size())
			run(t, team, func(ctx context.Context, m *Member) error {
				r := rand.New(rand.NewPCG(uint64(m.CPU()), 7))
				for round := range int64(rounds(300)) {
					if r.IntN(8) == 0 {
						time.Sleep(time.Duration(r.IntN(200)) * time.Microsecond)
					}
					arrived.Add(1)
					if err := m.Barrier(ctx); err != nil {
						return err
					}
					if a := arrived.Load(); a < n*(round+1) {
						return fmt.Errorf("round %d: member %d left with %d of %d arrivals", round, m.CPU(), a, n*(round+1))
					}
				}
				return nil
			})
		})
	}
}
