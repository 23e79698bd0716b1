package coll

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/ring"
	"github.com/plexus-hpc/plexus/tree"
)

// within runs the team's f and fails the test if Run takes longer than
// the deadline that f's context carries: an error must never be a hang.
func within(t *testing.T, team *Team, d time.Duration, f func(ctx context.Context, m *Member) error) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	err := team.Run(ctx, func(m *Member) error { return f(ctx, m) })
	if time.Since(start) > d+5*time.Second {
		t.Fatalf("Run took %v with a %v deadline", time.Since(start), d)
	}
	return err
}

// A link that fails part way through gives every member an error well
// before the deadline, and Run reports the injected fault.
func TestLinkFaultPropagates(t *testing.T) {
	for _, n := range []int{2, 5, 8} {
		bc := buildTree(t, n, tree.Binary)
		root, kid := bc.Root, bc.Children[bc.Root][0]
		tw := newTwin(twinConfig{Slots: 4, FailAfter: func(a, b int) int {
			if min(root, kid) == a && max(root, kid) == b {
				return 10
			}
			return 0
		}})
		team := newTeam(t, Config{Broadcast: bc, transport: tw})
		start := time.Now()
		err := within(t, team, time.Minute, func(ctx context.Context, m *Member) error {
			for range 100 {
				if err := m.Barrier(ctx); err != nil {
					return err
				}
			}
			return nil
		})
		if !errors.Is(err, errInjected) || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%d members: Run returned %v, want the injected fault", n, err)
		}
		if time.Since(start) > 10*time.Second {
			t.Errorf("%d members: the fault took %v to reach everyone", n, time.Since(start))
		}
		if !errors.Is(team.Err(), ErrClosed) || !errors.Is(team.Err(), errInjected) {
			t.Errorf("team error %v, want ErrClosed wrapping the fault", team.Err())
		}
	}
}

// A member that never joins leaves the others waiting until their
// context ends; they return its error unchanged.
func TestContextErrorUnchanged(t *testing.T) {
	for _, tr := range transports {
		team := newTeam(t, Config{Broadcast: buildTree(t, 3, tree.Binary), transport: tr.make()})
		errs := make(chan error, team.Size())
		within(t, team, 50*time.Millisecond, func(ctx context.Context, m *Member) error {
			if m.IsRoot() {
				return nil // never broadcasts
			}
			var buf [8]byte
			_, err := m.Broadcast(ctx, buf[:], 0)
			errs <- err
			return err
		})
		close(errs)
		for err := range errs {
			if err != context.DeadlineExceeded && !errors.Is(err, ErrClosed) {
				t.Errorf("%s: got %v, want context.DeadlineExceeded itself or ErrClosed", tr.name, err)
			}
		}
	}
}

func TestCloseWakesWaiters(t *testing.T) {
	team := newTeam(t, Config{Broadcast: buildTree(t, 4, tree.Adaptive)})
	time.AfterFunc(20*time.Millisecond, team.Close)
	err := within(t, team, time.Minute, func(ctx context.Context, m *Member) error {
		if m.IsRoot() {
			return nil
		}
		return m.Barrier(ctx)
	})
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
	if err := team.Run(context.Background(), func(*Member) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("Run on a closed team: %v", err)
	}
}

// A message longer than a member's buffer is ErrTruncated (and, on
// rings, ring.ErrTruncated), and its subtree is not left hanging.
func TestTruncated(t *testing.T) {
	for _, tr := range transports {
		team := newTeam(t, Config{Broadcast: buildTree(t, 5, tree.Binary), transport: tr.make()})
		err := within(t, team, time.Minute, func(ctx context.Context, m *Member) error {
			buf := make([]byte, 100)
			if !m.IsRoot() {
				buf = buf[:10]
			}
			_, err := m.Broadcast(ctx, buf, 100)
			return err
		})
		if !errors.Is(err, ErrTruncated) {
			t.Errorf("%s: got %v, want ErrTruncated", tr.name, err)
		}
		if tr.name == "ring" && !errors.Is(err, ring.ErrTruncated) {
			t.Errorf("ring: %v does not wrap ring.ErrTruncated", err)
		}
	}
}

func TestBadInputs(t *testing.T) {
	cases := map[string]func(ctx context.Context, m *Member) error{
		"reduce lengths differ": func(ctx context.Context, m *Member) error {
			return m.Reduce(ctx, make([]byte, 1+m.CPU()%2), make([]byte, 2), func(acc, in []byte) {})
		},
		"reduce too large": func(ctx context.Context, m *Member) error {
			return m.Reduce(ctx, make([]byte, 1<<20), make([]byte, 1<<20), func(acc, in []byte) {})
		},
		"short output": func(ctx context.Context, m *Member) error {
			return m.Allreduce(ctx, make([]byte, 8), make([]byte, 4), func(acc, in []byte) {})
		},
		"broadcast beyond buffer": func(ctx context.Context, m *Member) error {
			_, err := m.Broadcast(ctx, make([]byte, 4), 5)
			return err
		},
	}
	for name, f := range cases {
		team := newTeam(t, Config{Broadcast: buildTree(t, 4, tree.Binary)})
		err := within(t, team, time.Minute, f)
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: got %v, want an error before the deadline", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}

func TestConfigErrors(t *testing.T) {
	a, b := buildTree(t, 4, tree.Binary), buildTree(t, 5, tree.Binary)
	other, err := tree.Build(synthModel(4), tree.Spec{Topology: tree.Binary, Root: (a.Root + 1) % 4})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]Config{
		"no tree":          {},
		"invalid tree":     {Broadcast: &tree.Tree{Root: 1, Children: map[int][]int{0: nil}}},
		"members differ":   {Broadcast: a, Reduce: b},
		"roots differ":     {Broadcast: a, Reduce: other},
		"slots":            {Broadcast: a, Slots: 3},
		"max message":      {Broadcast: a, Slots: 4, MaxMessage: 1000},
		"negative":         {Broadcast: a, MaxMessage: -1},
		"pin not allowed":  {Broadcast: &tree.Tree{Root: math.MaxInt32, Children: map[int][]int{math.MaxInt32: nil}}, Pin: true},
		"transport errors": {Broadcast: a, transport: func(a, b int) (Link, Link, error) { return nil, nil, errors.New("no") }},
	}
	for name, cfg := range cases {
		if _, err := NewTeam(cfg); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	cfg := Config{Broadcast: &tree.Tree{Root: 1 << 20, Children: map[int][]int{1 << 20: nil}}, Pin: true}
	if _, err := NewTeam(cfg); !errors.Is(err, affinity.ErrNotAllowed) {
		t.Errorf("pinning to CPU %d: %v, want affinity.ErrNotAllowed", 1<<20, err)
	}
}

// A nil reduction operation on one member, or a negative broadcast
// length at the root, is ErrArgument there and ends the others' wait: no
// panic on a member's goroutine, no hang.
func TestBadArguments(t *testing.T) {
	cases := map[string]func(ctx context.Context, m *Member) error{
		"nil op, values": func(ctx context.Context, m *Member) error {
			in, out := []int64{1, 2}, make([]int64, 2)
			if m.CPU() == 1 {
				return AllreduceValues(ctx, m, in, out, nil)
			}
			return AllreduceValues(ctx, m, in, out, func(a, b int64) int64 { return a + b })
		},
		"nil op, reduce": func(ctx context.Context, m *Member) error {
			return ReduceValues[float64](ctx, m, []float64{1}, make([]float64, 1), nil)
		},
		"nil op, bytes": func(ctx context.Context, m *Member) error {
			return m.Allreduce(ctx, make([]byte, 8), make([]byte, 8), nil)
		},
		"negative broadcast": func(ctx context.Context, m *Member) error {
			_, err := m.Broadcast(ctx, make([]byte, 8), -1)
			return err
		},
	}
	for name, f := range cases {
		team := newTeam(t, Config{Broadcast: buildTree(t, 4, tree.Binary)})
		err := within(t, team, time.Minute, f)
		if !errors.Is(err, ErrArgument) {
			t.Errorf("%s: got %v, want ErrArgument before the deadline", name, err)
		}
	}
}

// An empty reduction needs no operation: it only synchronises.
func TestEmptyReduceNilOp(t *testing.T) {
	team := newTeam(t, Config{Broadcast: buildTree(t, 4, tree.Binary)})
	err := within(t, team, time.Minute, func(ctx context.Context, m *Member) error {
		if err := m.Reduce(ctx, nil, nil, nil); err != nil {
			return err
		}
		return m.Allreduce(ctx, nil, nil, nil)
	})
	if err != nil {
		t.Errorf("empty Reduce and Allreduce with a nil op: %v", err)
	}
}
