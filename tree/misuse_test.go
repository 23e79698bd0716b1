package tree

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// TestSimulateRefusesUnknownOp: the zero Op, or one past the last, is an
// error, not a panic.
func TestSimulateRefusesUnknownOp(t *testing.T) {
	m := uniformModel(4, 100, 100)
	for _, op := range []Op{0, ReleaseBarrier + 1} {
		if _, err := Simulate(m, flatTree(4), op); !errors.Is(err, ErrOp) {
			t.Errorf("Simulate(%v): %v, want ErrOp", op, err)
		}
	}
}

// TestCyclicTree: a hand-built Tree with a cycle has a finite depth, and
// WriteText refuses it with Validate's error instead of recursing.
func TestCyclicTree(t *testing.T) {
	cyc := &Tree{Root: 0, Children: map[int][]int{0: {1}, 1: {2}, 2: {0}}}
	if d := cyc.Depth(); d != 2 {
		t.Errorf("Depth of 0→1→2→0: %d, want 2 (each member counted once)", d)
	}
	var b bytes.Buffer
	if err := cyc.WriteText(&b); !errors.Is(err, ErrInvalid) || b.Len() != 0 {
		t.Errorf("WriteText: %v, wrote %q; want ErrInvalid and nothing", err, b.String())
	}
}

// TestAllreduceArguments: negative sizes and costs that are not finite
// and non-negative are refused.
func TestAllreduceArguments(t *testing.T) {
	m, tr := uniformModel(4, 100, 100), flatTree(4)
	if _, err := SimulateAllreduce(m, tr, tr, AllreduceDoubling, -100, DefaultAllreduceCosts); !errors.Is(err, ErrArgument) {
		t.Errorf("SimulateAllreduce of -100 bytes: %v, want ErrArgument", err)
	}
	if _, err := PlanAllreduce(m, tr, tr, -1, DefaultAllreduceCosts); !errors.Is(err, ErrArgument) {
		t.Errorf("PlanAllreduce up to -1 bytes: %v, want ErrArgument", err)
	}
	for _, c := range []AllreduceCosts{{Byte: math.NaN()}, {Op: -1}, {Byte: math.Inf(1)}} {
		if _, err := SimulateAllreduce(m, tr, tr, AllreduceTrees, 8, c); !errors.Is(err, ErrArgument) {
			t.Errorf("SimulateAllreduce with costs %+v: %v, want ErrArgument", c, err)
		}
	}
}

// TestBuildNilModel: no model is an error, not a nil dereference.
func TestBuildNilModel(t *testing.T) {
	if _, err := Build(nil, Spec{Topology: Adaptive}); !errors.Is(err, ErrGroup) {
		t.Errorf("Build(nil): %v, want ErrGroup", err)
	}
}
