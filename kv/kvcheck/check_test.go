package kvcheck

import (
	"errors"
	"testing"
)

func set(c int, k, v, prev string, call, ret int64, slot uint64) Op {
	op := Op{Client: c, Kind: Set, Key: []byte(k), Value: []byte(v), Call: call, Return: ret, Slot: slot}
	if prev != "" {
		op.Out = []byte(prev)
	}
	return op
}

func get(c int, k, out string, call, ret int64, slot uint64) Op {
	op := Op{Client: c, Kind: Get, Key: []byte(k), Call: call, Return: ret, Slot: slot}
	if out != "" {
		op.Out = []byte(out)
	}
	return op
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []Op
		ok   bool
	}{
		{"sequential sets", []Op{set(0, "k", "a", "", 0, 1, 1), set(1, "k", "b", "a", 2, 3, 2)}, true},
		{"concurrent sets either order", []Op{set(0, "k", "a", "b", 0, 5, 2), set(1, "k", "b", "", 1, 4, 1)}, true},
		{"lost write", []Op{set(0, "k", "a", "", 0, 1, 1), set(1, "k", "b", "", 2, 3, 2)}, false},
		{"stale prev after return", []Op{set(0, "k", "a", "", 0, 1, 1), set(0, "k", "b", "", 5, 6, 2), set(1, "k", "c", "a", 7, 8, 3)}, false},
		{"failed set may apply", []Op{{Client: 0, Kind: Set, Key: []byte("k"), Value: []byte("a"), Call: 0, Failed: true},
			set(1, "k", "b", "a", 5, 6, 2)}, true},
		{"get sees latest at its slot", []Op{set(0, "k", "a", "", 0, 1, 1), set(0, "k", "b", "a", 2, 3, 2), get(1, "k", "a", 0, 9, 1)}, true},
		{"get misses a set at its slot", []Op{set(0, "k", "a", "", 0, 1, 1), set(0, "k", "b", "a", 2, 3, 2), get(1, "k", "a", 4, 5, 2)}, false},
		{"get of nothing after a set", []Op{set(0, "k", "a", "", 0, 1, 1), get(1, "k", "", 4, 5, 1)}, false},
		{"get of an unwritten value", []Op{get(1, "k", "zz", 4, 5, 1)}, false},
		{"client goes back in time", []Op{set(0, "k", "a", "", 0, 1, 1), set(1, "k", "b", "a", 2, 3, 2),
			get(2, "k", "b", 4, 5, 2), get(2, "k", "a", 6, 7, 1)}, false},
	} {
		err := (func() error {
			var h History
			for _, op := range tc.ops {
				h.Add(op)
			}
			return h.Check()
		})()
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrViolation)) {
			t.Errorf("%s: Check() = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
