package collective

import (
	"fmt"
	"slices"
	"testing"
)

// TestEvenHosts: the across-hosts allreduce applies only where at least
// two hosts hold the same number of ranks, at least two each.
func TestEvenHosts(t *testing.T) {
	cases := []struct {
		groups [][]int
		want   bool
	}{
		{[][]int{{0, 1}, {2, 3}}, true},
		{[][]int{{0, 2}, {1, 3}}, true},
		{[][]int{{0, 1}, {2, 3}, {4, 5}}, true},
		{[][]int{{0, 1, 2}, {3, 4, 5}}, true},
		{[][]int{{0, 1, 2, 3}}, false},      // one host
		{[][]int{{0}, {1}, {2}}, false},     // a rank per host: the plan's doubling
		{[][]int{{0, 1}, {2}}, false},       // uneven
		{[][]int{{0, 1}, {2, 3, 4}}, false}, // uneven
		{[][]int{{0, 1}, {2, 3}, {4}}, false},
	}
	for _, c := range cases {
		if got := EvenHosts(c.groups); got != c.want {
			t.Errorf("EvenHosts(%v) = %v, want %v", c.groups, got, c.want)
		}
	}
}

// TestCounterparts: every rank's partners are the ranks of its local
// index on each host, itself on its own, so that the partners of one
// local index form one set that every member of it agrees on.
func TestCounterparts(t *testing.T) {
	for _, groups := range [][][]int{
		{{0, 1}, {2, 3}},
		{{0, 2}, {1, 3}},
		{{0, 1, 2}, {3, 4, 5}},
		{{0, 3}, {1, 4}, {2, 5}},
		{{0, 1}, {2, 3}, {4, 5}, {6, 7}},
	} {
		t.Run(fmt.Sprint(groups), func(t *testing.T) {
			for h, g := range groups {
				for j, me := range g {
					host, peers := counterparts(groups, me)
					if host != h {
						t.Fatalf("rank %d: host %d, want %d", me, host, h)
					}
					for ph, p := range peers {
						if p != groups[ph][j] {
							t.Fatalf("rank %d: peer on host %d is %d, want %d", me, ph, p, groups[ph][j])
						}
						_, back := counterparts(groups, p)
						if !slices.Equal(back, peers) {
							t.Fatalf("rank %d's partners %v, partner %d's %v", me, peers, p, back)
						}
					}
				}
			}
		})
	}
}
