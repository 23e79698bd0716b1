//go:build linux

package collective

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/coll"
	"github.com/plexus-hpc/plexus/transport/shm"
	"github.com/plexus-hpc/plexus/tree"
)

// acrossLayouts are the even layouts the across-hosts allreduce runs
// on, one letter per rank naming its host.
var acrossLayouts = []string{"aabb", "abab", "aaabbb", "aabbcc"}

// TestAcrossOps: on every even layout, ranks on pretend hosts run
// rounds of trees' barriers and broadcasts mixed with floating-point
// allreduces across hosts; every rank gets the one allreduce result the
// documented order gives (wantHier: each host's inputs in rank order,
// the hosts' partials in doublingSteps' bracketing), the same bytes
// everywhere. With crowded=true the ranks wait on their host's posts as
// on a crowded machine (hierwait.go).
func TestAcrossOps(t *testing.T) {
	for _, crowded := range []bool{false, true} {
		for _, layout := range acrossLayouts {
			t.Run(fmt.Sprintf("crowded=%v/hosts=%s", crowded, layout), func(t *testing.T) {
				acrossRounds(t, layout, crowded)
			})
		}
	}
}

// acrossRounds is one case of TestAcrossOps.
func acrossRounds(t *testing.T, layout string, crowded bool) {
	f := hostWorlds(t, strings.Split(layout, ""))
	ctx := testCtx(t)
	cs := newComms(t, ctx, f.ws, Config{Model: Placement})
	for r, c := range cs {
		if c.across == nil || c.hier != nil || c.PostBytes() != shm.PostBytes || c.Levels() != 1 {
			t.Fatalf("rank %d: across %v, hier %v, PostBytes %d, %d levels: not across hosts",
				r, c.across != nil, c.hier != nil, c.PostBytes(), c.Levels())
		}
		c.across.f.crowded = crowded
	}
	rounds := count(500)
	got := make([][][]byte, len(cs))
	err := eachRank(len(cs), func(r int) error {
		for i := range rounds {
			res, err := postRound(ctx, cs[r], i)
			if err != nil {
				return fmt.Errorf("round %d (%s): %w", i, roundOp(i), err)
			}
			got[r] = append(got[r], res)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rounds {
		want := wantHier(layout, i)
		for r := range cs {
			if !bytes.Equal(got[r][i], want) {
				t.Fatalf("round %d (%s): rank %d got %x, want %x", i, roundOp(i), r, got[r][i], want)
			}
		}
	}
}

// TestAcrossRule: the across-hosts allreduce is chosen only on even
// layouts of two or more ranks per host, with neither Hierarchy,
// NoPosts nor a forced algorithm, and on crowded machines only with
// AcrossCrowded; elsewhere the trees (or the two levels) keep it, and
// every variant still sums right next to the others on the same worlds.
func TestAcrossRule(t *testing.T) {
	for _, layout := range []string{"aab", "abc", "aabbb"} {
		f := hostWorlds(t, strings.Split(layout, ""))
		ctx := testCtx(t)
		cs := newComms(t, ctx, f.ws, Config{Model: Placement})
		if cs[0].across != nil || cs[0].PostBytes() != -1 {
			t.Errorf("hosts %s: across %v, PostBytes %d; want the trees", layout, cs[0].across != nil, cs[0].PostBytes())
		}
	}
	f := hostWorlds(t, []string{"a", "a", "b", "b"})
	ctx := testCtx(t)
	variants := map[string]Config{
		"default":   {Model: Placement},
		"hierarchy": {Model: Placement, Hierarchy: true},
		"noposts":   {Model: Placement, NoPosts: true},
		"forced":    {Model: Placement, Allreduce: tree.AllreduceTrees},
	}
	names := []string{"default", "hierarchy", "noposts", "forced"}
	cs := map[string][]*Comm{}
	for _, name := range names {
		cs[name] = newComms(t, ctx, f.ws, variants[name])
		if got, want := cs[name][0].across != nil, name == "default"; got != want {
			t.Errorf("%s: across %v, want %v", name, got, want)
		}
	}
	if cs["default"][0].acrossHosts(true) != nil { // before it takes a lane
		t.Errorf("crowded, without AcrossCrowded: across hosts, want the trees")
	}
	err := eachRank(4, func(r int) error {
		for i := range 20 {
			for _, name := range names {
				if err := checkAllreduce(ctx, cs[name][r], i, 1+i%12); err != nil { // 8 to 96 bytes
					return fmt.Errorf("%s: %w", name, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAcrossOrder: with an op that is neither commutative nor
// associative (acc = 3·acc + in), every rank returns the fold in the
// documented order, written out here: each host's inputs in rank order,
// then the hosts' partials, for 2 hosts h0∘h1, for 3 (h0∘h2)∘h1, for 4
// (h0∘h1)∘(h2∘h3).
func TestAcrossOrder(t *testing.T) {
	f3 := func(a, b uint64) uint64 { return 3*a + b }
	for _, layout := range []string{"aabb", "abab", "aabbcc", "aabbccdd"} {
		t.Run("hosts="+layout, func(t *testing.T) {
			p := hostPartials(layout, func(r int) uint64 { return uint64(r + 1) }, f3)
			var want uint64
			switch len(p) {
			case 2:
				want = f3(p[0], p[1])
			case 3:
				want = f3(f3(p[0], p[2]), p[1])
			case 4:
				want = f3(f3(p[0], p[1]), f3(p[2], p[3]))
			}
			acrossCheck(t, layout, opOf(f3), func(r int) uint64 { return uint64(r + 1) }, want)
		})
	}
}

// TestAcrossSequentialFold: for an associative op that does not commute
// (products of 2×2 integer matrices, wrapping), every rank of a layout
// whose hosts hold consecutive ranks, a power of two of hosts, returns
// the sequential fold of the inputs in rank order, m0·m1·…·m(n-1). (On
// 3 hosts the bracketing puts h2 before h1: TestAcrossOrder.)
func TestAcrossSequentialFold(t *testing.T) {
	for _, layout := range []string{"aabb", "aaabbb", "aabbccdd"} {
		t.Run("hosts="+layout, func(t *testing.T) {
			f := hostWorlds(t, strings.Split(layout, ""))
			ctx := testCtx(t)
			cs := newComms(t, ctx, f.ws, Config{Model: Placement})
			want := matrixOf(0)
			for r := 1; r < len(cs); r++ {
				want = matMul(want, matrixOf(r))
			}
			err := eachRank(len(cs), func(r int) error {
				for i := range count(50) {
					out := make([]byte, 32)
					if err := cs[r].Allreduce(ctx, matrixOf(r), out, matOp); err != nil {
						return err
					}
					if !bytes.Equal(out, want) {
						return fmt.Errorf("allreduce %d: %x, want %x", i, out, want)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestAcrossPeerLost: a rank dies while the others wait for it in an
// allreduce across hosts, its host's other rank waiting on its post and
// its counterpart on its partial: every survivor fails with an error
// wrapping comm.ErrPeerLost or comm.ErrLinkAborted within seconds, and
// the communicator is closed everywhere.
func TestAcrossPeerLost(t *testing.T) {
	for _, crowded := range []bool{false, true} {
		for _, gone := range []int{1, 3} {
			t.Run(fmt.Sprintf("crowded=%v/gone=%d", crowded, gone), func(t *testing.T) {
				acrossLost(t, gone, crowded)
			})
		}
	}
}

// acrossLost is one case of TestAcrossPeerLost.
func acrossLost(t *testing.T, gone int, crowded bool) {
	f := hostWorlds(t, []string{"a", "a", "b", "b"})
	ctx := testCtx(t)
	cs := newComms(t, ctx, f.ws, Config{Model: Placement})
	for _, c := range cs {
		c.across.f.crowded = crowded
	}
	survivorsFail(t, ctx, f, cs, gone, "allreduce")
}

// TestAcrossMismatch: ranks of a host that disagree on the length fail
// with an error wrapping coll.ErrMismatch rather than read what was not
// written, and the others fail rather than hang.
func TestAcrossMismatch(t *testing.T) {
	f := hostWorlds(t, []string{"a", "a", "b", "b"})
	ctx := testCtx(t)
	cs := newComms(t, ctx, f.ws, Config{Model: Placement})
	err := eachRank(4, func(r int) error {
		n := 8
		if r == 3 {
			n = 16
		}
		return cs[r].Allreduce(ctx, make([]byte, n), make([]byte, n), func(a, b []byte) {})
	})
	if !errors.Is(err, coll.ErrMismatch) {
		t.Fatalf("allreduce of 8 and 16 bytes: %v, want one wrapping coll.ErrMismatch", err)
	}
}

// acrossCheck runs one allreduce of op on layout's worlds, rank r's
// input in(r) in both of its two words, and checks every rank's second
// word is want.
func acrossCheck(t *testing.T, layout string, op func(acc, in []byte), in func(r int) uint64, want uint64) {
	t.Helper()
	f := hostWorlds(t, strings.Split(layout, ""))
	ctx := testCtx(t)
	cs := newComms(t, ctx, f.ws, Config{Model: Placement})
	err := eachRank(len(cs), func(r int) error {
		if cs[r].across == nil {
			return errors.New("not across hosts")
		}
		b, out := make([]byte, 16), make([]byte, 16)
		binary.LittleEndian.PutUint64(b, in(r))
		binary.LittleEndian.PutUint64(b[8:], in(r))
		if err := cs[r].Allreduce(ctx, b, out, op); err != nil {
			return err
		}
		if got := binary.LittleEndian.Uint64(out[8:]); got != want {
			return fmt.Errorf("%d, want %d", got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// hostPartials folds each host's inputs in rank order with f, hosts in
// the order of their lowest rank.
func hostPartials(layout string, in func(r int) uint64, f func(a, b uint64) uint64) []uint64 {
	var p []uint64
	at := map[byte]int{}
	for r := range len(layout) {
		if h, ok := at[layout[r]]; ok {
			p[h] = f(p[h], in(r))
			continue
		}
		at[layout[r]] = len(p)
		p = append(p, in(r))
	}
	return p
}

// opOf is f on every 8-byte word.
func opOf(f func(a, b uint64) uint64) func(acc, in []byte) {
	return func(acc, in []byte) {
		for j := 0; j < len(acc); j += 8 {
			binary.LittleEndian.PutUint64(acc[j:], f(binary.LittleEndian.Uint64(acc[j:]), binary.LittleEndian.Uint64(in[j:])))
		}
	}
}

// matrixOf is rank r's 2×2 matrix, four little-endian words row by row.
func matrixOf(r int) []byte {
	m := make([]byte, 32)
	for j, v := range []uint64{uint64(r + 2), 1, uint64(3*r + 1), uint64(r*r + 5)} {
		binary.LittleEndian.PutUint64(m[8*j:], v)
	}
	return m
}

// matMul returns the product a·b of two encoded 2×2 matrices.
func matMul(a, b []byte) []byte {
	w := func(m []byte, i int) uint64 { return binary.LittleEndian.Uint64(m[8*i:]) }
	out := make([]byte, 32)
	for i := range 2 {
		for j := range 2 {
			binary.LittleEndian.PutUint64(out[8*(2*i+j):], w(a, 2*i)*w(b, j)+w(a, 2*i+1)*w(b, 2+j))
		}
	}
	return out
}

// matOp folds in into acc as acc = acc·in.
func matOp(acc, in []byte) { copy(acc, matMul(acc, in)) }
