package graph

import (
	"errors"
	"testing"
)

// The test graph: a 6-cycle 0-1-2-3-4-5-0 with the chord 1-4, a
// self-loop at 2, and a separate edge 6-7; vertex 8 is isolated.
var testEdges = [][2]int64{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}, {1, 4}, {2, 2}, {6, 7}}

func testTree(t *testing.T) (CSR, []int64, []int32) {
	t.Helper()
	g := FromEdges(0, 9, testEdges)
	parent, level := SerialBFS(&g, 0)
	if err := Validate(parent, level, 0, &g); err != nil {
		t.Fatalf("the serial search's tree fails: %v", err)
	}
	return g, parent, level
}

func TestSerialTree(t *testing.T) {
	_, parent, level := testTree(t)
	want := []int64{0, 0, 1, 2, 1, 0, -1, -1, -1}
	wantLevel := []int32{0, 1, 2, 3, 2, 1, -1, -1, -1}
	for v := range want {
		if parent[v] != want[v] || level[v] != wantLevel[v] {
			t.Errorf("vertex %d: parent %d level %d, want %d and %d", v, parent[v], level[v], want[v], wantLevel[v])
		}
	}
}

// TestRulesReject breaks the good tree one way per rule; each must be
// rejected naming its rule.
func TestRulesReject(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rule   Rule
		break_ func(parent []int64, level []int32)
	}{
		{"root's parent", RuleTree, func(p []int64, _ []int32) { p[0] = 1 }},
		{"cycle", RuleTree, func(p []int64, _ []int32) { p[1], p[4] = 4, 1 }},
		{"parent out of range", RuleTree, func(p []int64, _ []int32) { p[3] = 99 }},
		{"parent unreached", RuleTree, func(p []int64, _ []int32) { p[7] = 6 }},
		{"level skips", RuleLevels, func(_ []int64, l []int32) { l[3] = 4 }},
		{"root level", RuleLevels, func(_ []int64, l []int32) { l[0] = 1 }},
		// 3 hangs from 2 (an input edge) at level 3; its edge to 4 (level 2)
		// is fine, so move 4 down instead: 4 from 3 at level 4 spans 1-4.
		{"edge spans two levels", RuleEdgeSpan, func(p []int64, l []int32) { p[4], l[4] = 3, 4; p[3], l[3] = 2, 3 }},
		{"component not spanned", RuleSpanning, func(p []int64, l []int32) { p[3], l[3] = Unreached, -1 }},
		{"tree edge not input", RuleTreeEdges, func(p []int64, l []int32) { p[3], l[3] = 0, 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, parent, level := testTree(t)
			tc.break_(parent, level)
			err := Validate(parent, level, 0, &g)
			var v *Violation
			if !errors.As(err, &v) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("got %v, want a Violation of rule %v", err, tc.rule)
			}
			if v.Rule != tc.rule {
				t.Fatalf("got %v, want rule %v", err, tc.rule)
			}
		})
	}
}

func TestTraversedCountsComponent(t *testing.T) {
	g, parent, _ := testTree(t)
	loops, others := Traversed(parent, &g)
	// the component of 0 holds 7 edges besides the loop: 14 list entries.
	if loops != 1 || others != 14 {
		t.Errorf("loops %d others %d, want 1 and 14", loops, others)
	}
}

func TestRuleNames(t *testing.T) {
	for r := RuleTree; r <= RuleTreeEdges; r++ {
		if ruleNames[r] == "" {
			t.Errorf("rule %d has no name", r)
		}
	}
	if Rule(9).String() != "rule(9)" {
		t.Errorf("unknown rule prints %q", Rule(9).String())
	}
}
