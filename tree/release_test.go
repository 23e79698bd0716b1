package tree

import "testing"

// A release barrier on hand-computed trees of a uniform machine (send 10,
// receive 5): the reduction as for a barrier, then every child active
// 15 after its parent, siblings in parallel.
func TestReleaseBarrierByHand(t *testing.T) {
	m := uniformModel(4, 10, 5)
	for _, c := range []struct {
		name              string
		kids              [][]int
		barrier, released float64
	}{
		// Root 0 with children 1, 2, 3. Reduction: all arrive at 10,
		// received one after another: 25. Broadcast: sends end at 10, 20,
		// 30, the last child active at 35. Release: 15.
		{"flat", [][]int{{1, 2, 3}, nil, nil, nil}, 25 + 35, 25 + 15},
		// A chain 0-1-2-3: reduction 3 hops of 15, broadcast and release
		// both 3 hops of 15.
		{"chain", [][]int{{1}, {2}, {3}, nil}, 45 + 45, 45 + 45},
		// 0 with children 1 and 2, 1 with child 3. Reduction: 3 reaches 1
		// at 15 (10 + 5); 1 sends at 15, arrives at 0 at 25, 2's at 10:
		// 0 receives 2 by 15 and 1 by 30. Broadcast: 1 active at 15, 2 at
		// 25, 3 at 15 + 10 + 5 = 30. Release: 3 at 30, 1 and 2 at 15.
		{"two levels", [][]int{{1, 2}, {3}, nil, nil}, 30 + 30, 30 + 30},
	} {
		tr := &Tree{Root: 0, Children: map[int][]int{}}
		for p, k := range c.kids {
			tr.Children[p] = k
		}
		for op, want := range map[Op]float64{Barrier: c.barrier, ReleaseBarrier: c.released} {
			r, err := Simulate(m, tr, op)
			if err != nil {
				t.Fatal(err)
			}
			if r.Latency != want {
				t.Errorf("%s %v: %.1f, want %.1f", c.name, op, r.Latency, want)
			}
		}
	}
	if op, err := ParseOp("release-barrier"); err != nil || op != ReleaseBarrier {
		t.Errorf("ParseOp(release-barrier) = %v, %v", op, err)
	}
}
