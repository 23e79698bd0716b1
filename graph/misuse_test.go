package graph

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// TestSearchKeysNonPositive: no vertices or no keys asked for gives none,
// at once (n < 0 used to loop for ever in the permutation's set-up).
func TestSearchKeysNonPositive(t *testing.T) {
	done := make(chan [2][]int64, 1)
	go func() {
		all := func(int64) bool { return true }
		done <- [2][]int64{SearchKeys(-1, all, 3, 1), SearchKeys(10, all, -1, 1)}
	}()
	select {
	case got := <-done:
		if got[0] != nil || got[1] != nil {
			t.Errorf("SearchKeys(-1, ...) = %v, SearchKeys(10, ..., -1, ...) = %v; want nil, nil", got[0], got[1])
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SearchKeys(-1, ...) still runs after 10 s")
	}
	if p := newPerm(math.MaxUint64, 1); p.half != 32 {
		t.Errorf("permutation of 2^64-1 values: halves of %d bits, want 32", p.half)
	}
}

// TestValidatorsShortArrays: parent and level arrays that do not cover
// the vertices checked are ErrInvalid, not an index out of range.
func TestValidatorsShortArrays(t *testing.T) {
	g := FromEdges(0, 4, [][2]int64{{0, 1}, {1, 2}, {2, 3}})
	if err := CheckLevels([]int64{0, 0}, []int32{0}, 0, 0, 2); !errors.Is(err, ErrInvalid) {
		t.Errorf("CheckLevels with a short level: %v, want ErrInvalid", err)
	}
	if err := Validate([]int64{0}, []int32{0}, 0, &g); !errors.Is(err, ErrInvalid) {
		t.Errorf("Validate of a 4-vertex graph with 1-entry arrays: %v, want ErrInvalid", err)
	}
	if err := CheckEdges([]int64{0}, []int32{0}, &g); !errors.Is(err, ErrInvalid) {
		t.Errorf("CheckEdges with 1-entry arrays: %v, want ErrInvalid", err)
	}
	if err := CheckTreeEdges([]int64{0}, 0, &g); !errors.Is(err, ErrInvalid) {
		t.Errorf("CheckTreeEdges with a 1-entry parent: %v, want ErrInvalid", err)
	}
	if err := CheckLevels([]int64{0, 7}, []int32{0, 1}, 0, 0, 2); !errors.Is(err, ErrInvalid) {
		t.Errorf("CheckLevels with a parent past the arrays: %v, want ErrInvalid", err)
	}
}

// TestKroneckerNaN: NaN or infinite initiator weights are refused.
func TestKroneckerNaN(t *testing.T) {
	for _, w := range [][3]float64{{math.NaN(), .19, .19}, {.57, math.NaN(), .19}, {.57, .19, math.Inf(1)}} {
		if _, err := NewKronecker(10, 16, w[0], w[1], w[2], 1); !errors.Is(err, ErrBadGraph) {
			t.Errorf("NewKronecker(%v): %v, want ErrBadGraph", w, err)
		}
	}
}

// TestFromEdgesPanics: an endpoint that is no vertex, or a range that
// ends before it starts, panics naming it; a neighbour outside [lo, hi)
// is another rank's vertex and is kept.
func TestFromEdgesPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"negative endpoint": func() { FromEdges(0, 4, [][2]int64{{-1, 3}}) },
		"range":             func() { FromEdges(5, 2, nil) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "FromEdges") {
					t.Errorf("%s: recovered %v, want a panic naming FromEdges", name, r)
				}
			}()
			f()
		}()
	}
	if g := FromEdges(0, 4, [][2]int64{{2, 9}}); len(g.Adj(2)) != 1 || g.Adj(2)[0] != 9 {
		t.Errorf("edge to another rank's vertex 9: %v", g.Adj(2))
	}
}

// TestTopAndSummariseEmpty: k < 1 and no samples give empty results.
func TestTopAndSummariseEmpty(t *testing.T) {
	if got := Top([]Score{{1, 2}}, -1); len(got) != 0 {
		t.Errorf("Top(-1) = %v", got)
	}
	if got := Summarise(nil); got != (Stats{}) {
		t.Errorf("Summarise(nil) = %+v", got)
	}
}
