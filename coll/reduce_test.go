package coll

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"testing"
)

// value is member cpu's input in round r: distinct per member and round,
// negative for some, so that sum and max are both informative.
func value(cpu, r int) int64 { return int64((cpu+1)*(r+3)) * int64(1-2*(cpu%2)) }

// fold is the sequential reference: op over every member's value.
func fold(team *Team, r int, op func(a, b int64) int64) int64 {
	ms := team.Members()
	acc := value(ms[0].CPU(), r)
	for _, m := range ms[1:] {
		acc = op(acc, value(m.CPU(), r))
	}
	return acc
}

func sum(a, b int64) int64 { return a + b }

func TestReduceValues(t *testing.T) {
	ops := map[string]func(a, b int64) int64{"sum": sum, "max": func(a, b int64) int64 { return max(a, b) }}
	eachTeam(t, func(t *testing.T, team *Team) {
		for name, op := range ops {
			run(t, team, func(ctx context.Context, m *Member) error {
				for r := range rounds(300) {
					var got [1]int64
					if err := ReduceValues(ctx, m, []int64{value(m.CPU(), r)}, got[:], op); err != nil {
						return err
					}
					if want := fold(team, r, op); m.IsRoot() && got[0] != want {
						return fmt.Errorf("%s round %d: got %d, want %d", name, r, got[0], want)
					}
				}
				return nil
			})
		}
	})
}

// A reduction of a vector of 16 words (two ring slots and more) adds
// element-wise.
func TestReduceBytes(t *testing.T) {
	const words = 16
	add := func(acc, in []byte) {
		for i := 0; i < len(acc); i += 8 {
			binary.LittleEndian.PutUint64(acc[i:], binary.LittleEndian.Uint64(acc[i:])+binary.LittleEndian.Uint64(in[i:]))
		}
	}
	eachTeam(t, func(t *testing.T, team *Team) {
		run(t, team, func(ctx context.Context, m *Member) error {
			in, out := make([]byte, 8*words), make([]byte, 8*words)
			for r := range rounds(200) {
				for i := range words {
					binary.LittleEndian.PutUint64(in[8*i:], uint64(value(m.CPU(), r+i)))
				}
				if err := m.Reduce(ctx, in, out, add); err != nil {
					return err
				}
				for i := 0; m.IsRoot() && i < words; i++ {
					if got, want := int64(binary.LittleEndian.Uint64(out[8*i:])), fold(team, r+i, sum); got != want {
						return fmt.Errorf("round %d word %d: got %d, want %d", r, i, got, want)
					}
				}
			}
			return nil
		})
	})
}

func TestAllreduce(t *testing.T) {
	eachTeam(t, func(t *testing.T, team *Team) {
		run(t, team, func(ctx context.Context, m *Member) error {
			for r := range rounds(300) {
				var got [1]float64
				in := []float64{float64(value(m.CPU(), r)) / 4}
				if err := AllreduceValues(ctx, m, in, got[:], func(a, b float64) float64 { return a + b }); err != nil {
					return err
				}
				if want := float64(fold(team, r, sum)) / 4; got[0] != want {
					return fmt.Errorf("round %d: got %g, want %g", r, got[0], want)
				}
				if err := allreduceBytes(ctx, m, team, r); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// allreduceBytes takes the maximum over one byte per member with the
// []byte form.
func allreduceBytes(ctx context.Context, m *Member, team *Team, r int) error {
	in, out := []byte{byte(m.CPU() + r)}, []byte{0}
	err := m.Allreduce(ctx, in, out, func(acc, in []byte) { acc[0] = max(acc[0], in[0]) })
	want := byte(0)
	for _, o := range team.Members() {
		want = max(want, byte(o.CPU()+r))
	}
	if err == nil && out[0] != want {
		err = fmt.Errorf("round %d: byte allreduce %d, want %d", r, out[0], want)
	}
	return err
}

func TestValueEncoding(t *testing.T) {
	var b [8]byte
	check := func(ok bool, what string) {
		if !ok {
			t.Errorf("%s does not round-trip", what)
		}
	}
	put(b[:], int8(-5))
	check(get[int8](b[:]) == -5, "int8")
	put(b[:], uint64(math.MaxUint64))
	check(get[uint64](b[:]) == math.MaxUint64, "uint64")
	put(b[:], int64(math.MinInt64))
	check(get[int64](b[:]) == math.MinInt64, "int64")
	put(b[:], float32(0.1))
	check(get[float32](b[:]) == 0.1, "float32")
	put(b[:], math.Inf(-1))
	check(math.IsInf(get[float64](b[:]), -1), "float64")
	type celsius float64
	put(b[:], celsius(-40.5))
	check(get[celsius](b[:]) == -40.5, "named float")
}

// TestAllreducePair: a team of two exchanges its values, and both members
// fold them in the same order, the root's first, so even an operation
// that is not commutative gives both the same bytes; out may be in.
func TestAllreducePair(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			team := newTeam(t, Config{Broadcast: buildTree(t, 2, topologies[0]), transport: tr.make()})
			var root, other int
			for _, m := range team.Members() {
				if m.IsRoot() {
					root = m.CPU()
				} else {
					other = m.CPU()
				}
			}
			notCommutative := func(acc, in []byte) { acc[0] = acc[0]*3 + in[0] }
			run(t, team, func(ctx context.Context, m *Member) error {
				for r := range rounds(200) {
					buf := []byte{byte(m.CPU() + r)}
					if err := m.Allreduce(ctx, buf, buf, notCommutative); err != nil {
						return err
					}
					if want := byte(root+r)*3 + byte(other+r); buf[0] != want {
						return fmt.Errorf("member %d round %d: %d, want %d (root's value first)", m.CPU(), r, buf[0], want)
					}
				}
				return nil
			})
		})
	}
}
