package coll

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"

	"github.com/plexus-hpc/plexus/tree"
)

// wordOps fold vectors of 8-byte words element by element; a slice, not
// a map, so that every member runs them in the same order.
var wordOps = []struct {
	name string
	f    func(a, b uint64) uint64
}{
	{"sum", func(a, b uint64) uint64 { return a + b }},
	{"max", func(a, b uint64) uint64 { return uint64(max(int64(a), int64(b))) }},
	{"xor", func(a, b uint64) uint64 { return a ^ b }},
}

func wordsOp(f func(a, b uint64) uint64) func(acc, in []byte) {
	return func(acc, in []byte) {
		for i := 0; i+8 <= len(acc); i += 8 {
			binary.LittleEndian.PutUint64(acc[i:], f(binary.LittleEndian.Uint64(acc[i:]), binary.LittleEndian.Uint64(in[i:])))
		}
	}
}

// vectorLengths are the allreduce lengths tested, in bytes: empty, one
// word, lengths that are not multiples of the 64-byte blocks, and the
// longest the twin links carry.
var vectorLengths = []int{0, 8, 24, 136, 520, DefaultMaxMessage}

func memberCounts() []int {
	if testing.Short() {
		return []int{1, 2, 3, 4, 5, 7, 8}
	}
	return []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
}

// fillWords writes member cpu's input of round r: word i is value(cpu, r+i).
func fillWords(buf []byte, cpu, r int) {
	for i := 0; i+8 <= len(buf); i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], uint64(value(cpu, r+i/8)))
	}
}

// checkWords compares out with the sequential fold of every member's input.
func checkWords(team *Team, out []byte, r int, f func(a, b uint64) uint64) error {
	for i := 0; i+8 <= len(out); i += 8 {
		ms := team.Members()
		want := uint64(value(ms[0].CPU(), r+i/8))
		for _, o := range ms[1:] {
			want = f(want, uint64(value(o.CPU(), r+i/8)))
		}
		if got := binary.LittleEndian.Uint64(out[i:]); got != want {
			return fmt.Errorf("round %d word %d: got %d, want %d", r, i/8, int64(got), int64(want))
		}
	}
	return nil
}

// Every algorithm, forced, gives every member the fold of all inputs, for
// 1 to 9 members (powers of two and not), on every transport, for every
// length and operation; out is in on odd rounds.
func TestAllreduceAlgorithms(t *testing.T) {
	for _, tr := range transports {
		for _, a := range tree.Algorithms() {
			for _, n := range memberCounts() {
				t.Run(fmt.Sprintf("%s/%v/members=%d", tr.name, a, n), func(t *testing.T) {
					cfg := Config{Broadcast: buildTree(t, n, tree.Binary), transport: tr.make(), Allreduce: tree.FixedAllreduce(a)}
					allreduceEverything(t, newTeam(t, cfg))
				})
			}
		}
	}
}

func allreduceEverything(t *testing.T, team *Team) {
	run(t, team, func(ctx context.Context, m *Member) error {
		for _, op := range wordOps {
			name, f := op.name, op.f
			for _, size := range vectorLengths {
				for r := range rounds(20) {
					in, out := make([]byte, size), make([]byte, size)
					fillWords(in, m.CPU(), r)
					if r%2 == 1 {
						out = in
					}
					if err := m.Allreduce(ctx, in, out, wordsOp(f)); err != nil {
						return err
					}
					if err := checkWords(team, out, r, f); err != nil {
						return fmt.Errorf("%s of %d bytes, member %d: %w", name, size, m.CPU(), err)
					}
				}
			}
		}
		return nil
	})
}

// Every member ends with the same bytes even for an operation whose result
// depends on the order of its operands, as floating point can.
func TestAllreduceAlgorithmsAgree(t *testing.T) {
	notCommutative := func(acc, in []byte) {
		for i := range acc {
			acc[i] = acc[i]*3 + in[i]
		}
	}
	for _, a := range tree.Algorithms() {
		for _, n := range memberCounts() {
			t.Run(fmt.Sprintf("%v/members=%d", a, n), func(t *testing.T) {
				team := newTeam(t, Config{Broadcast: buildTree(t, n, tree.Adaptive), Allreduce: tree.FixedAllreduce(a)})
				var mu sync.Mutex
				got := map[int][]byte{}
				run(t, team, func(ctx context.Context, m *Member) error {
					buf := make([]byte, 200)
					for i := range buf {
						buf[i] = byte(m.CPU()*7 + i)
					}
					err := m.Allreduce(ctx, buf, buf, notCommutative)
					mu.Lock()
					got[m.CPU()] = buf
					mu.Unlock()
					return err
				})
				for cpu, b := range got {
					if !bytes.Equal(b, got[team.Members()[0].CPU()]) {
						t.Errorf("member %d ends with other bytes than member %d", cpu, team.Members()[0].CPU())
					}
				}
			})
		}
	}
}

// A plan that changes algorithm with the length runs them interleaved on
// one team: trees below 16 bytes, doubling below 256, Rabenseifner above.
func TestAllreduceMixedPlan(t *testing.T) {
	plan := tree.AllreducePlan{ByClass: []tree.Algorithm{
		tree.AllreduceTrees, tree.AllreduceTrees, tree.AllreduceTrees, tree.AllreduceTrees, tree.AllreduceTrees,
		tree.AllreduceDoubling, tree.AllreduceDoubling, tree.AllreduceDoubling, tree.AllreduceDoubling,
		tree.AllreduceRabenseifner}}
	for _, n := range []int{3, 4, 6} {
		t.Run(fmt.Sprintf("members=%d", n), func(t *testing.T) {
			team := newTeam(t, Config{Broadcast: buildTree(t, n, tree.Adaptive), Allreduce: plan})
			run(t, team, func(ctx context.Context, m *Member) error {
				f := wordOps[0].f
				for r := range rounds(300) {
					size := []int{8, 64, 512, 0, 1024}[r%5]
					in, out := make([]byte, size), make([]byte, size)
					fillWords(in, m.CPU(), r)
					if err := m.Allreduce(ctx, in, out, wordsOp(f)); err != nil {
						return err
					}
					if err := checkWords(team, out, r, f); err != nil {
						return fmt.Errorf("%d bytes (%v): %w", size, plan.For(size), err)
					}
				}
				return nil
			})
		})
	}
}

func TestAllreducePlanValidated(t *testing.T) {
	cfg := Config{Broadcast: buildTree(t, 3, tree.Binary), Allreduce: tree.AllreducePlan{ByClass: []tree.Algorithm{0}}}
	if _, err := NewTeam(cfg); err == nil {
		t.Error("team with an invalid allreduce plan made")
	}
}

func TestButterflyPeers(t *testing.T) {
	cases := []struct {
		i, n     int
		partners []int
		fold     int
	}{
		{0, 1, nil, -1},
		{0, 4, []int{1, 2}, -1},
		{3, 4, []int{2, 1}, -1},
		{1, 6, []int{0, 3}, 5},
		{5, 6, nil, 1},
		{2, 6, []int{3, 0}, -1},
		{0, 9, []int{1, 2, 4}, 8},
	}
	for _, k := range cases {
		p, f := butterflyPeers(k.i, k.n)
		if fmt.Sprint(p) != fmt.Sprint(k.partners) || f != k.fold {
			t.Errorf("butterflyPeers(%d, %d) = %v, %d; want %v, %d", k.i, k.n, p, f, k.partners, k.fold)
		}
	}
}

// Only a team whose plan leaves the trees gets butterfly links.
func TestButterflyLinksOnlyWhenPlanned(t *testing.T) {
	for _, tc := range []struct {
		plan  tree.AllreducePlan
		links bool
	}{
		{tree.AllreducePlan{}, false},
		{tree.FixedAllreduce(tree.AllreduceTrees), false},
		{tree.AllreducePlan{ByClass: []tree.Algorithm{tree.AllreduceTrees, tree.AllreduceRabenseifner}}, true},
	} {
		team := newTeam(t, Config{Broadcast: buildTree(t, 4, tree.Binary), Allreduce: tc.plan})
		for _, m := range team.Members() {
			if got := len(m.bf.partner) > 0; got != tc.links {
				t.Errorf("plan %v: member %d has butterfly links %v, want %v", tc.plan, m.CPU(), got, tc.links)
			}
		}
	}
}
