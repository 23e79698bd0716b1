package coll

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/plexus-hpc/plexus/tree"
)

// Each signal count has a cache line of its own, and so does each
// member's signal state, which it writes every barrier.
func TestSignalLineSize(t *testing.T) {
	if s := unsafe.Sizeof(signalLine{}); s != cacheLine {
		t.Errorf("signalLine is %d bytes, want %d", s, cacheLine)
	}
	if s := unsafe.Sizeof(signal{}); s%cacheLine != 0 {
		t.Errorf("signal is %d bytes, not a multiple of %d", s, cacheLine)
	}
	for range 100 {
		lineSink = new(signalLine) // on the heap, as Rings makes them
		if p := uintptr(unsafe.Pointer(lineSink)); p%cacheLine != 0 {
			t.Fatalf("signalLine at %#x is not on a line boundary", p)
		}
	}
}

var lineSink *signalLine

// A team uses signals only when every link has them.
func TestTeamUsesSignals(t *testing.T) {
	bc := buildTree(t, 5, tree.Binary)
	root, kid := bc.Root, bc.Children[bc.Root][0]
	first := func(a, b int) bool { return a == min(root, kid) && b == max(root, kid) }
	cases := []struct {
		name string
		tr   transport
		want bool
	}{
		{"ring", nil, true},
		{"twin", newTwin(twinConfig{}), true},
		{"messages", withoutSignals(rings(DefaultSlots), nil), false},
		{"one link without", withoutSignals(rings(DefaultSlots), first), false},
	}
	for _, c := range cases {
		team := newTeam(t, Config{Broadcast: bc, transport: c.tr})
		if team.signals != c.want {
			t.Errorf("%s: team uses signals %v, want %v", c.name, team.signals, c.want)
		}
		checkBarrier(t, team, (*Member).Barrier)
	}
}

// Signals raise a count that only grows; a fault ends them as it ends
// messages, and counts them towards FailAfter.
func TestTwinSignals(t *testing.T) {
	a, b := newTwinPair(1, 8)
	a.p.failAfter = 3
	for range 2 {
		if err := a.Signal(); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := b.Signals(); n != 2 || err != nil {
		t.Fatalf("after two signals: %d, %v", n, err)
	}
	if n, err := a.Signals(); n != 0 || err != nil {
		t.Fatalf("the sender's end: %d, %v", n, err)
	}
	if err := a.Send(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Signal(); !errors.Is(err, errInjected) {
		t.Fatalf("fourth use of the link: %v, want errInjected", err)
	}
	if n, err := b.Signals(); n != 2 || !errors.Is(err, errInjected) {
		t.Errorf("after the fault: %d, %v; want 2 and errInjected", n, err)
	}
}

// Barriers of both kinds, broadcasts, reductions and allreduces in a
// random order that every member shares, on every transport and on
// separate reduction and broadcast trees: every payload must be right
// and no member may leave a barrier early, although signals and messages
// travel the same links unordered with each other.
func TestInterleavedCollectives(t *testing.T) {
	for _, tr := range transports {
		for _, n := range []int{2, 5, 8} {
			red, bc, err := tree.BestPair(synthModel(n), tree.Spec{Root: tree.AutoRoot})
			if err != nil {
				t.Fatal(err)
			}
			shapes := map[string]Config{
				"adaptive": {Broadcast: buildTree(t, n, tree.Adaptive)},
				"bestpair": {Broadcast: bc, Reduce: red},
				"crossed":  crossedChains(n),
			}
			for shape, cfg := range shapes {
				t.Run(fmt.Sprintf("%s/%s/members=%d", tr.name, shape, n), func(t *testing.T) {
					cfg.transport = tr.make()
					interleave(t, newTeam(t, cfg), int64(n))
				})
			}
		}
	}
}

// crossedChains returns chains rooted at 0 that run opposite ways: the
// reduction 0 ← 1 ← ... ← n-1, the broadcast 0 → n-1 → ... → 1. Between
// 1 and n-1 both phases of a barrier signal down the same direction of a
// shared link, so its signals must be counted across the two phases.
func crossedChains(n int) Config {
	red := &tree.Tree{Root: 0, Children: map[int][]int{n - 1: nil}}
	bc := &tree.Tree{Root: 0, Children: map[int][]int{0: {n - 1}, 1: nil}}
	for i := 0; i < n-1; i++ {
		red.Children[i] = []int{i + 1}
	}
	for i := n - 1; i > 1; i-- {
		bc.Children[i] = []int{i - 1}
	}
	return Config{Broadcast: bc, Reduce: red}
}

// interleave runs the random program with the given seed on team.
func interleave(t *testing.T, team *Team, seed int64) {
	var arrived atomic.Int64
	run(t, team, func(ctx context.Context, m *Member) error {
		p := program{m: m, team: team, rng: rand.New(rand.NewSource(seed)), arrived: &arrived}
		for step := range rounds(3000) {
			if err := p.step(ctx, step); err != nil {
				return fmt.Errorf("step %d: %w", step, err)
			}
		}
		return nil
	})
}

// program is one member's view of the shared random program.
type program struct {
	m        *Member
	team     *Team
	rng      *rand.Rand
	arrived  *atomic.Int64
	barriers int64
	buf      [256]byte
}

func (p *program) step(ctx context.Context, seq int) error {
	switch op := p.rng.Intn(5); op {
	case 0, 1:
		return p.barrier(ctx, op == 0)
	case 2:
		return p.broadcast(ctx, seq)
	case 3:
		var got [1]int64
		err := ReduceValues(ctx, p.m, []int64{value(p.m.CPU(), seq)}, got[:], sum)
		if want := fold(p.team, seq, sum); err == nil && p.m.IsRoot() && got[0] != want {
			err = fmt.Errorf("reduce: got %d, want %d", got[0], want)
		}
		return err
	default:
		var got [1]int64
		err := AllreduceValues(ctx, p.m, []int64{value(p.m.CPU(), seq)}, got[:], sum)
		if want := fold(p.team, seq, sum); err == nil && got[0] != want {
			err = fmt.Errorf("allreduce: got %d, want %d", got[0], want)
		}
		return err
	}
}

// barrier enters a tree or dissemination barrier and checks that every
// member has arrived at it.
func (p *program) barrier(ctx context.Context, tree bool) error {
	p.arrived.Add(1)
	p.barriers++
	b := p.m.DisseminationBarrier
	if tree {
		b = p.m.Barrier
	}
	if err := b(ctx); err != nil {
		return err
	}
	if a, want := p.arrived.Load(), int64(p.team.Size())*p.barriers; a < want {
		return fmt.Errorf("barrier %d (tree %v): left with %d of %d arrivals", p.barriers, tree, a, want)
	}
	return nil
}

func (p *program) broadcast(ctx context.Context, seq int) error {
	n := 0
	if p.m.IsRoot() {
		n = len(message(p.buf[:], seq))
	}
	n, err := p.m.Broadcast(ctx, p.buf[:], n)
	if err != nil {
		return err
	}
	return checkMessage(p.buf[:n], seq)
}

// recordingTwin is a twin transport that keeps every link it makes, so
// that a test can break one.
type recordingTwin struct {
	links [][2]*twinLink
}

func (r *recordingTwin) transport(a, b int) (Link, Link, error) {
	x, y := newTwinPair(DefaultSlots, DefaultMaxMessage)
	r.links = append(r.links, [2]*twinLink{x, y})
	return x, y, nil
}

// A link that fails while members wait for its signals wakes them with
// the fault, and the rest of the team with ErrClosed.
func TestLinkFailureWakesSignalWaiters(t *testing.T) {
	for _, n := range []int{2, 5} {
		var rec recordingTwin
		team := newTeam(t, Config{Broadcast: buildTree(t, n, tree.Binary), transport: rec.transport})
		if !team.signals {
			t.Fatal("twin team does not use signals")
		}
		err := within(t, team, time.Minute, func(ctx context.Context, m *Member) error {
			if m.IsRoot() { // never enters the barrier, breaks every link
				time.Sleep(20 * time.Millisecond)
				for _, l := range rec.links {
					l[0].Fail(nil)
				}
				return nil
			}
			return m.Barrier(ctx)
		})
		if !errors.Is(err, errInjected) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%d members: Run returned %v, want the injected fault", n, err)
		}
	}
}

// A member's error, and Close, wake members waiting for signals on every
// transport; a context that ends is returned unchanged.
func TestEndWakesSignalWaiters(t *testing.T) {
	boom := errors.New("boom")
	ends := map[string]struct {
		end  func(team *Team) error // run by the root instead of the barrier
		want error
	}{
		"member error": {func(*Team) error { time.Sleep(20 * time.Millisecond); return boom }, boom},
		"close":        {func(team *Team) error { time.Sleep(20 * time.Millisecond); team.Close(); return nil }, ErrClosed},
		"context":      {func(*Team) error { return nil }, context.DeadlineExceeded},
	}
	for _, tr := range transports {
		for name, e := range ends {
			team := newTeam(t, Config{Broadcast: buildTree(t, 4, tree.Adaptive), transport: tr.make()})
			start := time.Now()
			err := within(t, team, 200*time.Millisecond, func(ctx context.Context, m *Member) error {
				if m.IsRoot() {
					return e.end(team)
				}
				return m.Barrier(ctx)
			})
			if !errors.Is(err, e.want) || time.Since(start) > 5*time.Second {
				t.Errorf("%s/%s: Run returned %v after %v, want %v", tr.name, name, err, time.Since(start), e.want)
			}
		}
	}
}
