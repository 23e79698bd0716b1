package group

import (
	"fmt"
	"slices"
	"testing"

	"github.com/plexus-hpc/plexus/tree"
)

func TestLeafLeader(t *testing.T) {
	for _, tc := range []struct {
		name    string
		kids    [][]int
		root, l int
		want    [][]int
	}{
		{"child of l", [][]int{{2}, {0}, {}}, 1, 0, [][]int{{}, {2}, {0}}},
		{"grandchild", [][]int{{2, 3}, {0}, {4}, {}, {}}, 1, 0, [][]int{{}, {4}, {0}, {}, {2, 3}}},
		{"leaf already", [][]int{{}, {0, 2}, {}}, 1, 0, [][]int{{}, {0, 2}, {}}},
		{"root", [][]int{{1}, {}}, 0, 0, [][]int{{1}, {}}},
	} {
		leafLeader(tc.kids, tc.root, tc.l)
		if !slices.EqualFunc(tc.kids, tc.want, slices.Equal) {
			t.Errorf("%s: got %v, want %v", tc.name, tc.kids, tc.want)
		}
	}
}

// TestTeamLeaderIsLeaf checks every tree of a Tree team of 14: the
// replica that leads while the root accepts relays nothing, and the tree
// still reaches every other replica once.
func TestTeamLeaderIsLeaf(t *testing.T) {
	for _, topology := range []tree.Topology{tree.Adaptive, tree.Binary} {
		team, err := NewTeam(TeamConfig{Replicas: 14, Mode: Tree, Topology: topology})
		if err != nil {
			t.Fatal(err)
		}
		for root := range 14 {
			name := fmt.Sprintf("%v, root %d", topology, root)
			if k := team.kids[root][firstLeader(root)]; len(k) > 0 {
				t.Errorf("%s: leader %d relays to %v", name, firstLeader(root), k)
			}
			checkSpans(t, name, team.kids[root], root)
		}
	}
}

// checkSpans fails unless kids, walked from root, reaches every other
// replica exactly once.
func checkSpans(t *testing.T, name string, kids [][]int, root int) {
	t.Helper()
	seen := make([]int, len(kids))
	var walk func(int)
	walk = func(id int) {
		for _, c := range kids[id] {
			if seen[c]++; seen[c] == 1 {
				walk(c)
			}
		}
	}
	walk(root)
	for id, n := range seen {
		if want := boolInt(id != root); n != want {
			t.Errorf("%s: replica %d reached %d times, want %d", name, id, n, want)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
