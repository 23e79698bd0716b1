package graph

import "testing"

func TestSearchKeys(t *testing.T) {
	even := func(v int64) bool { return v%2 == 0 }
	keys := SearchKeys(1000, even, 64, 9)
	if len(keys) != 64 {
		t.Fatalf("%d keys, want 64", len(keys))
	}
	seen := map[int64]bool{}
	for _, k := range keys {
		if !even(k) || seen[k] || k < 0 || k >= 1000 {
			t.Fatalf("key %d: ineligible, repeated or out of range", k)
		}
		seen[k] = true
	}
	again := SearchKeys(1000, even, 64, 9)
	for i := range keys {
		if keys[i] != again[i] {
			t.Fatalf("same seed, key %d differs: %d and %d", i, keys[i], again[i])
		}
	}
	few := SearchKeys(10, func(v int64) bool { return v < 3 }, 64, 9)
	if len(few) != 3 {
		t.Errorf("3 eligible vertices gave %d keys", len(few))
	}
	if none := SearchKeys(10, func(int64) bool { return false }, 64, 9); len(none) != 0 {
		t.Errorf("no eligible vertex gave %v", none)
	}
}
