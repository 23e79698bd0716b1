package bench

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/tree"
)

func TestSameTree(t *testing.T) {
	a := &tree.Tree{Root: 0, Children: map[int][]int{0: {1, 2}, 1: {}, 2: {}}}
	for _, c := range []struct {
		name string
		b    *tree.Tree
		want bool
	}{
		{"same, other topology name", &tree.Tree{Topology: "cluster", Root: 0, Children: map[int][]int{0: {1, 2}, 1: {}, 2: {}}}, true},
		{"children in another order", &tree.Tree{Root: 0, Children: map[int][]int{0: {2, 1}, 1: {}, 2: {}}}, false},
		{"another shape", &tree.Tree{Root: 0, Children: map[int][]int{0: {1}, 1: {2}, 2: {}}}, false},
		{"another root", &tree.Tree{Root: 1, Children: map[int][]int{1: {0, 2}, 0: {}, 2: {}}}, false},
		{"another member", &tree.Tree{Root: 0, Children: map[int][]int{0: {1, 3}, 1: {}, 3: {}}}, false},
		{"one member fewer", &tree.Tree{Root: 0, Children: map[int][]int{0: {1}, 1: {}}}, false},
	} {
		if got := sameTree(a, c.b); got != c.want {
			t.Errorf("%s: sameTree = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestTwins checks that a team case is the twin of the first earlier
// case of its bench and size with the same tree, and that other cases
// never are.
func TestTwins(t *testing.T) {
	flat := &tree.Tree{Root: 0, Children: map[int][]int{0: {1, 2, 3}, 1: {}, 2: {}, 3: {}}}
	chain := &tree.Tree{Root: 0, Children: map[int][]int{0: {1}, 1: {2}, 2: {3}, 3: {}}}
	flat2 := &tree.Tree{Root: 0, Children: map[int][]int{0: {1, 2, 3}, 1: {}, 2: {}, 3: {}}}
	ks := []*kase{
		{bench: "barrier", impl: "team-sequential", members: 4},
		{bench: "barrier", impl: "team-binary", members: 4},
		{bench: "barrier", impl: "team-cluster", members: 4},
		{bench: "barrier", impl: "team-best", members: 4},
		{bench: "bcast", impl: "team-sequential", members: 4}, // another bench: measured
		{bench: "barrier", impl: "dissemination", members: 4}, // no tree
		{bench: "barrier", impl: "team-sequential", members: 8},
	}
	trees := []*tree.Tree{flat, chain, flat2, flat, flat, nil, flat}
	if got, want := twins(ks, trees), []int{-1, -1, 0, 0, -1, -1, -1}; !slices.Equal(got, want) {
		t.Errorf("twins = %v, want %v", got, want)
	}
}

// TestStageMeasuresTwinsOnce checks that a stage runs a tree shared by
// two team cases once, gives both rows its measurement, names the
// measured case in the twin's row, and still ticks once per case and run.
func TestStageMeasuresTwinsOnce(t *testing.T) {
	flat := func() (*tree.Tree, error) {
		return &tree.Tree{Root: 0, Children: map[int][]int{0: {1}, 1: {}}}, nil
	}
	setups := map[string]int{}
	mk := func(name string) *kase {
		return &kase{bench: "barrier", impl: name, members: 2, unpinned: true, tree: flat,
			setup: func() (body, func(), error) {
				setups[name]++
				return func(i, _ int) error {
					if i == 0 {
						busy(time.Microsecond)
					}
					return nil
				}, func() {}, nil
			}}
	}
	ks := []*kase{mk("team-a"), mk("team-b")}
	cfg := &Config{CPUs: []int{0, 1}, Target: 2 * time.Millisecond, Runs: 3}
	ticks := 0
	rs, err := runStage(context.Background(), cfg, ks, func() { ticks++ })
	if err != nil {
		t.Fatal(err)
	}
	if setups["team-a"] == 0 || setups["team-b"] != 0 {
		t.Errorf("setups %v: want team-a run and team-b not", setups)
	}
	if ticks != len(ks)*cfg.Runs {
		t.Errorf("%d ticks, want %d", ticks, len(ks)*cfg.Runs)
	}
	if rs[1].NsPerOp != rs[0].NsPerOp || rs[1].Ops != rs[0].Ops || rs[1].SameTreeAs != "team-a" || rs[0].SameTreeAs != "" {
		t.Errorf("rows %+v and %+v: want team-b to carry team-a's measurement and name it", rs[0], rs[1])
	}
}
