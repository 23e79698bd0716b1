//go:build linux

package collective

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// hostWorlds returns worlds in this process whose rank r runs on the
// pretend host hosts[r] (commtest.HostWorlds): shared memory within a
// host, TCP on the loopback between hosts.
func hostWorlds(t testing.TB, hosts []string) fixture { return hostWorldsOver(t, hosts, true) }

// hostWorldsOver is hostWorlds, with TCP alone between all ranks when
// shared is false (comm.TransportTCP's worlds).
func hostWorldsOver(t testing.TB, hosts []string, shared bool) fixture {
	t.Helper()
	dir := ""
	if shared {
		var err error
		if dir, err = os.MkdirTemp(shm.DefaultDir, "plexus-hier-test-"); err != nil {
			t.Skip(err)
		}
	}
	ws, err := commtest.HostWorlds(hosts, "hier-test", dir, comm.Config{})
	if err != nil {
		if dir != "" {
			os.RemoveAll(dir)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		closeAll(ws)
		if dir != "" {
			os.RemoveAll(dir)
		}
	})
	return fixture{ws, func(r int) { ws[r].Close() }}
}

// hierLayouts are the host layouts the hierarchical tests run on, one
// letter per rank naming its host.
var hierLayouts = []string{"aabb", "aabcc", "abc", "abab", "aaab"}

// wantHier is round i's result at every rank of a world laid out as
// layout: for an allreduce, each host's inputs folded in rank order, the
// hosts' partials in doublingSteps' bracketing (2 hosts: h0∘h1; 3 hosts:
// (h0∘h2)∘h1), written out here rather than derived from the schedule.
func wantHier(layout string, i int) []byte {
	if roundOp(i) != "allreduce" {
		return wantRound(len(layout), i)
	}
	var partial [][]byte
	seen := map[byte]int{}
	for r := range len(layout) {
		v := putFloats(roundValues(r, i))
		h, ok := seen[layout[r]]
		if !ok {
			seen[layout[r]] = len(partial)
			partial = append(partial, v)
			continue
		}
		addFloats(partial[h], v)
	}
	acc := partial[0]
	if len(partial) == 3 {
		addFloats(acc, partial[2])
	}
	addFloats(acc, partial[1])
	return acc
}

// TestHierOps: on every layout, ranks on pretend hosts run rounds of
// barriers, broadcasts from every root and floating-point allreduces in
// two levels; every rank gets the broadcast's bytes and the one
// allreduce result the documented order gives. With crowded=true the
// ranks wait on their host's posts as on a crowded machine (hierwait.go).
func TestHierOps(t *testing.T) {
	for _, crowded := range []bool{false, true} {
		for _, layout := range hierLayouts {
			t.Run(fmt.Sprintf("crowded=%v/hosts=%s", crowded, layout), func(t *testing.T) {
				hierRounds(t, layout, crowded)
			})
		}
	}
}

// hierRounds is one case of TestHierOps.
func hierRounds(t *testing.T, layout string, crowded bool) {
	f := hostWorlds(t, strings.Split(layout, ""))
	ctx := testCtx(t)
	cs := newComms(t, ctx, f.ws, Config{Model: Placement, Hierarchy: true})
	for r, c := range cs {
		if c.hier == nil || c.PostBytes() != shm.PostBytes || c.Levels() != 2 {
			t.Fatalf("rank %d: hier %v, PostBytes %d, %d levels: not hierarchical", r, c.hier != nil, c.PostBytes(), c.Levels())
		}
	}
	if crowded {
		crowd(cs)
	}
	rounds := count(500)
	got := make([][][]byte, len(cs))
	err := eachRank(len(cs), func(r int) error {
		for i := range rounds {
			res, err := postRound(ctx, cs[r], i)
			if err != nil {
				return fmt.Errorf("rank %d round %d (%s): %w", r, i, roundOp(i), err)
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

// crowd makes the ranks of cs wait on their hosts' posts as where the
// ranks outnumber the CPUs (commtest's worlds never are).
func crowd(cs []*Comm) {
	for _, c := range cs {
		if c.hier.f != nil {
			c.hier.f.crowded = true
		}
	}
}

// TestHierNoHosts: without Config.Hierarchy, or with NoPosts, barriers
// and broadcasts stay on the trees across hosts (and allreduces too with
// NoPosts; without Hierarchy small ones cross at every rank, across.go);
// a payload longer than a post takes the trees on a hierarchical
// communicator; all mix with its two-level ones.
func TestHierNoHosts(t *testing.T) {
	f := hostWorlds(t, []string{"a", "a", "b", "b"})
	ctx := testCtx(t)
	hier := newComms(t, ctx, f.ws, Config{Model: Placement, Hierarchy: true})
	trees := newComms(t, ctx, f.ws, Config{Model: Placement})
	links := newComms(t, ctx, f.ws, Config{Model: Placement, Hierarchy: true, NoPosts: true})
	for _, cs := range [][]*Comm{trees, links} {
		if cs[0].hier != nil || cs[0].Levels() != 1 {
			t.Fatalf("no Hierarchy, or NoPosts: hier %v, %d levels; want none, 1", cs[0].hier != nil, cs[0].Levels())
		}
	}
	if links[0].across != nil || links[0].PostBytes() != -1 {
		t.Fatalf("NoPosts: across %v, PostBytes %d; want the trees, -1", links[0].across != nil, links[0].PostBytes())
	}
	if trees[0].across == nil || trees[0].PostBytes() != shm.PostBytes {
		t.Fatalf("no Hierarchy: across %v, PostBytes %d; want the allreduce across hosts (across.go)", trees[0].across != nil, trees[0].PostBytes())
	}
	err := eachRank(4, func(r int) error {
		for i := range 20 {
			for _, c := range []*Comm{hier[r], trees[r], links[r]} {
				if err := checkAllreduce(ctx, c, i, 1+i%12); err != nil { // 8 to 96 bytes
					return err
				}
				if err := c.Barrier(ctx); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestHierPeerLost: a rank on another host dies while the others wait in
// a two-level barrier, broadcast or allreduce: every survivor fails with
// an error wrapping comm.ErrPeerLost or comm.ErrLinkAborted within
// seconds, and the communicator is closed everywhere.
func TestHierPeerLost(t *testing.T) {
	for _, crowded := range []bool{false, true} {
		for _, gone := range []int{1, 3} { // rank 1 leads host b; rank 3 follows there
			for _, op := range []string{"barrier", "bcast", "allreduce"} {
				t.Run(fmt.Sprintf("crowded=%v/gone=%d/op=%s", crowded, gone, op), func(t *testing.T) {
					hierLost(t, gone, op, crowded)
				})
			}
		}
	}
}

// hierLost is one case of TestHierPeerLost.
func hierLost(t *testing.T, gone int, op string, crowded bool) {
	f := hostWorlds(t, []string{"a", "b", "a", "b"})
	ctx := testCtx(t)
	cs := newComms(t, ctx, f.ws, Config{Model: Placement, Hierarchy: true})
	if crowded {
		crowd(cs)
	}
	survivorsFail(t, ctx, f, cs, gone, op)
}

// survivorsFail kills rank gone of f shortly after the others start op
// on cs (lostOp), and checks that every survivor fails with an error
// wrapping comm.ErrPeerLost or comm.ErrLinkAborted within seconds and
// that the communicator is then closed everywhere.
func survivorsFail(t *testing.T, ctx context.Context, f fixture, cs []*Comm, gone int, op string) {
	t.Helper()
	time.AfterFunc(30*time.Millisecond, func() { f.kill(gone) })
	start := time.Now()
	var survivors []int
	for r := range cs {
		if r != gone {
			survivors = append(survivors, r)
		}
	}
	err := eachRank(len(survivors), func(i int) error {
		return lostOp(ctx, cs[survivors[i]], op, gone)
	})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("survivors took %v to fail", d)
	}
	if !errors.Is(err, comm.ErrPeerLost) && !errors.Is(err, comm.ErrLinkAborted) {
		t.Fatalf("survivors' error %v, want one wrapping comm.ErrPeerLost or comm.ErrLinkAborted", err)
	}
	for _, r := range survivors {
		if !errors.Is(cs[r].Err(), ErrClosed) {
			t.Errorf("rank %d usable after a peer died: %v", r, cs[r].Err())
		}
	}
}

// TestHierCloseMidWait: Close at one rank ends its own wait in a
// two-level barrier with ErrClosed, at a leader and at another rank.
func TestHierCloseMidWait(t *testing.T) {
	for _, crowded := range []bool{false, true} {
		f := hostWorlds(t, []string{"a", "a", "b", "b"})
		ctx := testCtx(t)
		cs := newComms(t, ctx, f.ws, Config{Model: Placement, Hierarchy: true})
		if crowded {
			crowd(cs)
		}
		for _, r := range []int{0, 3} {
			time.AfterFunc(20*time.Millisecond, cs[r].Close)
			if err := cs[r].Barrier(ctx); !errors.Is(err, ErrClosed) {
				t.Errorf("crowded %v, rank %d: barrier after Close: %v, want ErrClosed", crowded, r, err)
			}
		}
	}
}

// TestHierOrder: with an op that is neither commutative nor associative
// (acc = 3·acc + in), every rank returns the fold in the documented
// order: each host's inputs in rank order, then the hosts' partials in
// doublingSteps' bracketing, written out here.
func TestHierOrder(t *testing.T) {
	op := func(acc, in []byte) {
		for j := 0; j < len(acc); j += 8 {
			binary.LittleEndian.PutUint64(acc[j:], 3*binary.LittleEndian.Uint64(acc[j:])+binary.LittleEndian.Uint64(in[j:]))
		}
	}
	f3 := func(a, b uint64) uint64 { return 3*a + b }
	for _, layout := range []string{"aabb", "abab", "aabcc", "abc"} {
		t.Run("hosts="+layout, func(t *testing.T) {
			f := hostWorlds(t, strings.Split(layout, ""))
			ctx := testCtx(t)
			cs := newComms(t, ctx, f.ws, Config{Model: Placement, Hierarchy: true})
			partial := map[byte]uint64{}
			var order []byte
			for r := range len(layout) {
				x := uint64(r + 1)
				if p, ok := partial[layout[r]]; ok {
					partial[layout[r]] = f3(p, x)
					continue
				}
				partial[layout[r]] = x
				order = append(order, layout[r])
			}
			want := f3(partial[order[0]], partial[order[1]])
			if len(order) == 3 {
				want = f3(f3(partial[order[0]], partial[order[2]]), partial[order[1]])
			}
			err := eachRank(len(cs), func(r int) error {
				in, out := make([]byte, 16), make([]byte, 16)
				binary.LittleEndian.PutUint64(in, uint64(r+1))
				binary.LittleEndian.PutUint64(in[8:], uint64(r+1))
				if err := cs[r].Allreduce(ctx, in, out, op); err != nil {
					return err
				}
				if got := binary.LittleEndian.Uint64(out[8:]); got != want {
					return fmt.Errorf("rank %d: %d, want %d", r, got, want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestHierTCPUnchanged: worlds that span hosts over TCP alone (no host
// areas) keep the trees: no hierarchical state, PostBytes -1, and the
// mixed rounds give the trees' results.
func TestHierTCPUnchanged(t *testing.T) {
	f := hostWorldsOver(t, []string{"a", "a", "b", "b"}, false)
	ctx := testCtx(t)
	cs := newComms(t, ctx, f.ws, Config{Model: Placement, Hierarchy: true})
	for r, c := range cs {
		if c.hier != nil || c.flat != nil || c.PostBytes() != -1 {
			t.Fatalf("rank %d over TCP alone: hier %v, flat %v, PostBytes %d; want the trees", r, c.hier != nil, c.flat != nil, c.PostBytes())
		}
	}
	err := eachRank(len(cs), func(r int) error {
		for i := range 50 {
			if roundOp(i) == "allreduce" {
				continue // the trees fold in arrival order
			}
			got, err := postRound(ctx, cs[r], i)
			if err != nil {
				return err
			}
			if want := wantRound(len(cs), i); !bytes.Equal(got, want) {
				return fmt.Errorf("rank %d round %d (%s): got %x, want %x", r, i, roundOp(i), got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
