package task

import (
	"testing"
	"time"
)

func TestChooseVictim(t *testing.T) {
	for _, tc := range []struct {
		self int
		dead []bool
		want []int // victims for draws 0, 1, 2, ...
		ok   bool
	}{
		{0, []bool{false, false}, []int{1, 1}, true},
		{1, []bool{false, false, false, false}, []int{0, 2, 3, 0}, true},
		{0, []bool{false, true, false, true, false}, []int{2, 4, 2}, true},
		{2, []bool{true, true, false}, nil, false},
		{0, []bool{false}, nil, false},
	} {
		for r, want := range tc.want {
			got, ok := chooseVictim(tc.self, tc.dead, uint64(r))
			if !ok || got != want {
				t.Errorf("chooseVictim(%d, %v, %d) = %d, %v; want %d", tc.self, tc.dead, r, got, ok, want)
			}
		}
		if _, ok := chooseVictim(tc.self, tc.dead, 12345); ok != tc.ok {
			t.Errorf("chooseVictim(%d, %v): ok %v, want %v", tc.self, tc.dead, ok, tc.ok)
		}
	}
}

// TestChooseVictimUniform: over every draw modulo the live count, each
// live rank other than self is chosen equally often, and never self or
// a dead rank.
func TestChooseVictimUniform(t *testing.T) {
	dead := []bool{false, false, true, false, false, true, false}
	counts := make([]int, len(dead))
	for r := range uint64(4 * 100) {
		v, ok := chooseVictim(3, dead, r)
		if !ok {
			t.Fatal("no victim")
		}
		counts[v]++
	}
	for r, c := range counts {
		want := 100
		if r == 3 || dead[r] {
			want = 0
		}
		if c != want {
			t.Errorf("rank %d chosen %d times, want %d", r, c, want)
		}
	}
}

func TestStealCount(t *testing.T) {
	for queued, want := range []int{0, 1, 1, 2, 2, 3, 3, 4} {
		if got := stealCount(queued); got != want {
			t.Errorf("stealCount(%d) = %d, want %d", queued, got, want)
		}
	}
	if got := stealCount(-1); got != 0 {
		t.Errorf("stealCount(-1) = %d", got)
	}
}

func TestBackoff(t *testing.T) {
	want := []time.Duration{0, minBackoff, 2 * minBackoff, 4 * minBackoff}
	for fails, w := range want {
		if got := backoff(fails); got != w {
			t.Errorf("backoff(%d) = %v, want %v", fails, got, w)
		}
	}
	prev := time.Duration(0)
	for fails := range 100 {
		d := backoff(fails)
		if d < prev || d > maxBackoff {
			t.Fatalf("backoff(%d) = %v after %v: want growing, at most %v", fails, d, prev, maxBackoff)
		}
		prev = d
	}
	if prev != maxBackoff {
		t.Errorf("backoff levels off at %v, want %v", prev, maxBackoff)
	}
	if pingInterval(0) != time.Millisecond || pingInterval(100) != 16*time.Millisecond {
		t.Errorf("pingInterval from %v to %v, want 1ms to 16ms", pingInterval(0), pingInterval(100))
	}
}

func TestAutoGrain(t *testing.T) {
	for _, tc := range []struct {
		n              int64
		ranks, workers int
		want           int64
	}{
		{0, 2, 8, 1}, {100, 2, 8, 1}, {1280, 2, 8, 10}, {1 << 40, 4, 16, 1024}, {50, 1, 0, 50},
	} {
		if got := autoGrain(tc.n, tc.ranks, tc.workers); got != tc.want {
			t.Errorf("autoGrain(%d, %d, %d) = %d, want %d", tc.n, tc.ranks, tc.workers, got, tc.want)
		}
	}
}

// TestBlock: the ranks' blocks tile the range in order, differ by at
// most one, and do not overflow near the int64 limit.
func TestBlock(t *testing.T) {
	for _, tc := range []struct{ start, n int64 }{{0, 0}, {5, 3}, {-7, 10}, {0, 1001}, {maxInt64 - 1000, 1000}, {0, maxInt64}} {
		for _, size := range []int{1, 2, 3, 7} {
			next, small, big := tc.start, maxInt64, int64(0)
			for r := range size {
				lo, count := block(tc.start, tc.n, r, size)
				if lo != next || count < 0 {
					t.Fatalf("block(%d, %d, %d, %d) = %d, %d; want it to start at %d", tc.start, tc.n, r, size, lo, count, next)
				}
				next += count
				small, big = min(small, count), max(big, count)
			}
			if next-tc.start != tc.n || big-small > 1 {
				t.Errorf("blocks of [%d, +%d) on %d ranks cover %d, sizes %d to %d", tc.start, tc.n, size, next-tc.start, small, big)
			}
		}
	}
}
