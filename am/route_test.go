package am

import (
	"slices"
	"testing"
)

// TestPlan: who relays what, for hosts given by their leaders.
func TestPlan(t *testing.T) {
	twoByTwo := []int{0, 0, 2, 2}         // host 0: {0,1}; host 1: {2,3}
	threeByTwo := []int{0, 0, 2, 2, 4, 4} // hosts {0,1}, {2,3}, {4,5}
	uneven := []int{0, 1, 1, 1}           // hosts {0}, {1,2,3}
	for _, c := range []struct {
		name    string
		leaders []int
		on      bool
		self    int
		first   []int
		wrap    []bool
		path    [][]int
	}{
		{"off", twoByTwo, false, 0, []int{0, 1, 2, 3}, []bool{false, false, false, false},
			[][]int{{0}, {1}, {2}, {3}}},
		{"2x2 non-pair rank", twoByTwo, true, 0, []int{0, 1, 1, 1}, []bool{false, false, true, true},
			[][]int{{0}, {1}, {1, 2}, {1, 2, 3}}},
		{"2x2 pair rank", twoByTwo, true, 1, []int{0, 1, 2, 2}, []bool{false, false, false, true},
			[][]int{{0}, {1}, {2}, {2, 3}}},
		{"2x2 remote pair rank", twoByTwo, true, 2, []int{1, 1, 2, 3}, []bool{true, false, false, false},
			[][]int{{1, 0}, {1}, {2}, {3}}},
		{"2x2 remote non-pair", twoByTwo, true, 3, []int{2, 2, 2, 3}, []bool{true, true, false, false},
			[][]int{{2, 1, 0}, {2, 1}, {2}, {3}}},
		{"3 hosts", threeByTwo, true, 0, []int{0, 1, 1, 1, 4, 4}, []bool{false, false, true, true, false, true},
			[][]int{{0}, {1}, {1, 2}, {1, 2, 3}, {4}, {4, 5}}},
		{"uneven", uneven, true, 3, []int{1, 1, 2, 3}, []bool{true, false, false, false},
			[][]int{{1, 0}, {1}, {2}, {3}}},
		{"one rank per host", []int{0, 1, 2}, true, 1, []int{0, 1, 2}, []bool{false, false, false},
			[][]int{{0}, {1}, {2}}},
	} {
		rt := plan(c.self, c.leaders, c.on)
		if !slices.Equal(rt.first, c.first) || !slices.Equal(rt.wrap, c.wrap) {
			t.Errorf("%s: first %v wrap %v, want %v %v", c.name, rt.first, rt.wrap, c.first, c.wrap)
		}
		for d, p := range c.path {
			if !slices.Equal(rt.path[d], p) {
				t.Errorf("%s: path to %d %v, want %v", c.name, d, rt.path[d], p)
			}
		}
	}
}

// TestNext: where a rank forwards an envelope, and that following next
// from any first hop reaches the destination along the planned path.
func TestNext(t *testing.T) {
	for _, leaders := range [][]int{{0, 0, 2, 2}, {0, 0, 2, 2, 4, 4}, {0, 1, 1, 1}, {0, 0, 0, 3, 3, 5}} {
		for s := range leaders {
			rt := plan(s, leaders, true)
			for d := range leaders {
				at, walked := rt.first[d], []int{rt.first[d]}
				for at != d && len(walked) <= 3 {
					next := plan(at, leaders, true)
					at = next.next(d)
					walked = append(walked, at)
				}
				if !slices.Equal(walked, rt.path[d]) {
					t.Errorf("leaders %v: %d to %d walked %v, planned %v", leaders, s, d, walked, rt.path[d])
				}
				if rt.wrap[d] != (rt.first[d] != d) {
					t.Errorf("leaders %v: %d to %d wrap %v with first hop %d", leaders, s, d, rt.wrap[d], rt.first[d])
				}
			}
		}
	}
}
