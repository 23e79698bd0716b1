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

// Members that take their trees' messages by mail are woken from their
// doors when they sleep: with budgets far shorter than a wake-up and
// members late at random, every barrier still waits for every member,
// and none hangs.
func TestMailWakesSleepers(t *testing.T) {
	for _, top := range []tree.Topology{tree.Sequential, tree.Binary} {
		t.Run(top.String(), func(t *testing.T) {
			team := newTeam(t, Config{Broadcast: buildTree(t, 5, top), policy: &shortBudget})
			for _, m := range team.Members() {
				if m.mail == nil || (m.mail.downIn.box == nil) != m.IsRoot() {
					t.Fatalf("member %d: mail %v", m.CPU(), m.mail)
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

// TestMailSlotSize: a slot is one cache line, so that a message and the
// word announcing it travel together.
func TestMailSlotSize(t *testing.T) {
	if mailSlotSize != cacheLine {
		t.Fatalf("mail slot is %d bytes, want %d", mailSlotSize, cacheLine)
	}
}

// Broadcasts and reductions of every length up to past a slot's, mixed
// with barriers, run back to back with members late at random and
// budgets far shorter than a wake-up: the root runs up to a mailbox ahead
// of its children and must wait for room, long messages go on the links
// behind their marks, and every member must see every message whole and
// in order, and every sum complete.
func TestMailOrderAndRoom(t *testing.T) {
	for _, top := range []tree.Topology{tree.Sequential, tree.Binary} {
		t.Run(top.String(), func(t *testing.T) {
			team := newTeam(t, Config{Broadcast: buildTree(t, 5, top), policy: &shortBudget, MaxMessage: 3 * mailData})
			size := uint64(team.Size())
			run(t, team, func(ctx context.Context, m *Member) error {
				r := rand.New(rand.NewPCG(uint64(m.CPU()), 9))
				buf := make([]byte, 3*mailData)
				for round := range rounds(400) {
					if r.IntN(16) == 0 {
						time.Sleep(time.Duration(r.IntN(100)) * time.Microsecond)
					}
					if err := mailRound(ctx, m, round, buf, size); err != nil {
						return fmt.Errorf("round %d: %w", round, err)
					}
				}
				return nil
			})
		})
	}
}

// mailRound runs round's operation: a broadcast of round%(3*mailData)
// bytes, a reduction or a barrier, and checks what arrived.
func mailRound(ctx context.Context, m *Member, round int, buf []byte, size uint64) error {
	switch round % 3 {
	case 0:
		n := round % len(buf)
		if m.IsRoot() {
			for i := range n {
				buf[i] = byte(round + i)
			}
		}
		got, err := m.Broadcast(ctx, buf, n)
		if err != nil {
			return err
		}
		if got != n {
			return fmt.Errorf("member %d got %d bytes, want %d", m.CPU(), got, n)
		}
		for i := range n {
			if buf[i] != byte(round+i) {
				return fmt.Errorf("member %d: byte %d is %d, want %d", m.CPU(), i, buf[i], byte(round+i))
			}
		}
	case 1:
		in := []uint64{1, uint64(round), uint64(m.CPU())}
		if round%2 == 1 {
			in = append(in, make([]uint64, 8)...) // past a slot: on the links
		}
		out := make([]uint64, len(in))
		if err := ReduceValues(ctx, m, in, out, func(a, b uint64) uint64 { return a + b }); err != nil {
			return err
		}
		if m.IsRoot() && (out[0] != size || out[1] != size*uint64(round)) {
			return fmt.Errorf("reduction %v, want %d members and %d", out[:2], size, size*uint64(round))
		}
	default:
		return m.Barrier(ctx)
	}
	return nil
}
