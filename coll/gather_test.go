package coll

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/plexus-hpc/plexus/tree"
)

// block is member cpu's gather input in round r, of n bytes.
func block(cpu, r, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(cpu*37 + r*11 + i*3)
	}
	return b
}

// gathered is the sequential reference: every member's block in id order.
func gathered(ids []int, r, n int) []byte {
	var out []byte
	for _, id := range ids {
		out = append(out, block(id, r, n)...)
	}
	return out
}

// gatherSizes are block lengths below, at and above a message.
var gatherSizes = []int{0, 1, 13, DefaultMaxMessage/2 + 3, 3 * DefaultMaxMessage}

func TestGather(t *testing.T) {
	eachTeam(t, func(t *testing.T, team *Team) {
		ids := cpus(team)
		run(t, team, func(ctx context.Context, m *Member) error {
			for r := range rounds(40) {
				n := gatherSizes[r%len(gatherSizes)] % (len(m.rx) * 3)
				out := make([]byte, len(ids)*n)
				if err := m.Gather(ctx, block(m.CPU(), r, n), out); err != nil {
					return err
				}
				if want := gathered(ids, r, n); m.IsRoot() && !bytes.Equal(out, want) {
					return fmt.Errorf("round %d, %d-byte blocks: gather differs from the reference", r, n)
				}
			}
			return nil
		})
	})
}

func TestAllgather(t *testing.T) {
	eachTeam(t, func(t *testing.T, team *Team) {
		ids := cpus(team)
		run(t, team, func(ctx context.Context, m *Member) error {
			for r := range rounds(40) {
				n := gatherSizes[r%len(gatherSizes)] % (len(m.rx) * 3)
				out := make([]byte, len(ids)*n)
				if err := m.Allgather(ctx, block(m.CPU(), r, n), out); err != nil {
					return err
				}
				if !bytes.Equal(out, gathered(ids, r, n)) {
					return fmt.Errorf("member %d round %d, %d-byte blocks: allgather differs", m.CPU(), r, n)
				}
				if err := m.Barrier(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// Members that disagree on the block length get ErrMismatch, not a hang.
func TestGatherMismatch(t *testing.T) {
	team := newTeam(t, Config{Broadcast: buildTree(t, 5, tree.Binary), transport: newTwin(twinConfig{})})
	err := team.Run(context.Background(), func(m *Member) error {
		n := 8
		if m.CPU() == 3 {
			n = 9
		}
		return m.Gather(context.Background(), make([]byte, n), make([]byte, 5*9))
	})
	if !errors.Is(err, ErrMismatch) {
		t.Fatalf("got %v, want ErrMismatch", err)
	}
}

func cpus(team *Team) []int {
	var ids []int
	for _, m := range team.Members() {
		ids = append(ids, m.CPU())
	}
	return ids
}
