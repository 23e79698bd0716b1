package pgas

import (
	"errors"
	"testing"
)

func TestLayoutHome(t *testing.T) {
	for _, tc := range []struct {
		l    Layout
		lin  int64
		want Addr
	}{
		{Layout{64, 1}, 0, Addr{0, 0}},
		{Layout{64, 1}, 1000, Addr{0, 1000}},
		{Layout{64, 3}, 0, Addr{0, 0}},
		{Layout{64, 3}, 63, Addr{0, 63}},
		{Layout{64, 3}, 64, Addr{1, 0}},
		{Layout{64, 3}, 130, Addr{2, 2}},
		{Layout{64, 3}, 192, Addr{0, 64}},
		{Layout{64, 3}, 200, Addr{0, 72}},
		{Layout{64, 3}, 64*7 + 5, Addr{1, 128 + 5}},
		{Layout{8, 4}, 33, Addr{0, 9}},
		{Layout{8, 4}, 63, Addr{3, 15}},
		{Layout{1, 5}, 12, Addr{2, 2}},
	} {
		if got := tc.l.Home(tc.lin); got != tc.want {
			t.Errorf("%+v.Home(%d) = %v; want %v", tc.l, tc.lin, got, tc.want)
		}
		if got := tc.l.Linear(tc.want); got != tc.lin {
			t.Errorf("%+v.Linear(%v) = %d; want %d", tc.l, tc.want, got, tc.lin)
		}
	}
}

// TestLayoutRoundTrip: Home and Linear are inverse, and Home visits every
// (rank, offset) of the first blocks exactly once.
func TestLayoutRoundTrip(t *testing.T) {
	for _, l := range []Layout{{64, 1}, {64, 2}, {64, 3}, {16, 7}, {1, 4}} {
		seen := make(map[Addr]bool)
		n := l.Block * int64(l.Ranks) * 5
		for lin := range n {
			a := l.Home(lin)
			if seen[a] || a.Rank < 0 || a.Rank >= l.Ranks || a.Offset >= n/int64(l.Ranks) {
				t.Fatalf("%+v.Home(%d) = %v: repeated or out of range", l, lin, a)
			}
			seen[a] = true
			if back := l.Linear(a); back != lin {
				t.Fatalf("%+v: Linear(Home(%d)) = %d", l, lin, back)
			}
		}
	}
}

func TestLayoutSpan(t *testing.T) {
	for _, tc := range []struct {
		l    Layout
		n    int64
		want int64
	}{
		{Layout{64, 3}, 0, 0},
		{Layout{64, 3}, 1, 64},
		{Layout{64, 3}, 192, 64},
		{Layout{64, 3}, 193, 128},
		{Layout{64, 1}, 100, 128},
		{Layout{8, 4}, 33, 16},
	} {
		if got := tc.l.Span(tc.n); got != tc.want {
			t.Errorf("%+v.Span(%d) = %d; want %d", tc.l, tc.n, got, tc.want)
		}
	}
}

func TestLayoutValidate(t *testing.T) {
	for _, l := range []Layout{{0, 1}, {64, 0}, {-1, 2}} {
		if err := l.Validate(); !errors.Is(err, ErrBadSize) {
			t.Errorf("%+v.Validate() = %v; want ErrBadSize", l, err)
		}
	}
	if err := (Layout{64, 3}).Validate(); err != nil {
		t.Errorf("valid layout: %v", err)
	}
}
