package coll

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/tree"
)

// BenchmarkHop times one hop of a token passed around every usable CPU,
// each member pinned and waiting for its predecessor, and reports ns per
// hop: through a bare word per member (the floor), through the members'
// mailboxes (what a tree's hop in a team is made of), and through a
// team's barrier on a chain (2(n-1) hops a barrier, all of coll's code
// on the way). The differences between the three say how much of a
// team's hop is the hand-off itself and how much the package's own work.
func BenchmarkHop(b *testing.B) {
	cpus, err := affinity.Allowed()
	if err != nil || len(cpus) < 2 {
		b.Skipf("needs two usable CPUs: %v %v", cpus, err)
	}
	for _, n := range []int{2, 4, 8, 16} {
		if n > len(cpus) {
			break
		}
		cs := cpus[:n]
		b.Run(fmt.Sprintf("members=%d/impl=word", n), func(b *testing.B) { benchWordRelay(b, cs) })
		b.Run(fmt.Sprintf("members=%d/impl=mail", n), func(b *testing.B) { benchMailRelay(b, cs, true) })
		b.Run(fmt.Sprintf("members=%d/impl=mail-noack", n), func(b *testing.B) { benchMailRelay(b, cs, false) })
		if n > 2 {
			b.Run(fmt.Sprintf("members=%d/impl=team-chain", n), func(b *testing.B) { benchChainBarrier(b, cs) })
		}
	}
}

// benchWordRelay passes the token through one word per member.
func benchWordRelay(b *testing.B, cpus []int) {
	n := len(cpus)
	words := make([]signalLine, n)
	laps := uint64(b.N/n + 1)
	b.ResetTimer()
	benchPinned(b, cpus, func(i int) {
		prev := &words[(i+n-1)%n].n
		for k := uint64(1); k <= laps; k++ {
			if i != 0 {
				for prev.Load() < k {
				}
			} else if k > 1 {
				for prev.Load() < k-1 {
				}
			}
			words[i].n.Store(k)
		}
	})
}

// benchMailRelay passes the token through the members' mailboxes; with
// acks, each member acknowledges what it takes and checks for room, as a
// team does; without, neither (safe here: a member posts lap k only after
// the token has been round, so its successor has taken lap k-1).
func benchMailRelay(b *testing.B, cpus []int, acked bool) {
	n := len(cpus)
	outs := make([]mailOut, n)
	acks := make([]signalLine, n)
	for i := range outs {
		outs[i].box = new(mailbox)
	}
	for i := range outs {
		outs[i].acks = []*atomic.Uint64{&acks[(i+1)%n].n}
	}
	laps := uint64(b.N/n + 1)
	var msg [8]byte
	b.ResetTimer()
	benchPinned(b, cpus, func(i int) {
		in := mailIn{box: outs[(i+n-1)%n].box}
		o := &outs[i]
		for k := uint64(1); k <= laps; k++ {
			if i != 0 || k > 1 {
				for {
					if _, ok := in.peek(); ok {
						break
					}
				}
				in.take()
				if acked {
					acks[i].n.Store(in.seen)
				}
			}
			for acked && !o.hasRoom() {
			}
			o.post(msg[:], false)
		}
	})
}

// benchChainBarrier times a team's barrier on a chain, per hop.
func benchChainBarrier(b *testing.B, cpus []int) {
	t := &tree.Tree{Topology: "chain", Root: cpus[0], Children: map[int][]int{}}
	for i, c := range cpus {
		t.Children[c] = nil
		if i+1 < len(cpus) {
			t.Children[c] = []int{cpus[i+1]}
		}
	}
	team := newTeam(b, Config{Broadcast: t, Pin: true})
	hops := 2 * (len(cpus) - 1)
	barriers := b.N/hops + 1
	ctx := context.Background()
	b.ResetTimer()
	err := team.Run(ctx, func(m *Member) error {
		for range barriers {
			if err := m.Barrier(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(barriers*hops), "ns/hop")
}
