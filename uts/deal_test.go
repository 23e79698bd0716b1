package uts

import (
	"errors"
	"testing"
)

func TestDealTo(t *testing.T) {
	for _, c := range []struct {
		self  int
		mine  int64
		known []int64
		want  int
	}{
		{0, 100, []int64{0, 50}, 1},            // the other stores fewer
		{0, 10, []int64{0, 50}, 0},             // this rank stores fewest
		{1, 50, []int64{50, 0}, 1},             // a tie stays here
		{2, 90, []int64{40, 40, 0, 60}, 0},     // ties elsewhere: the lowest rank
		{0, 0, []int64{999, 0, 0}, 0},          // the self entry of known is ignored
		{3, 500, []int64{700, 300, 800, 0}, 1}, // the smallest of the others
	} {
		if got := dealTo(c.self, c.mine, len(c.known), func(r int) int64 { return c.known[r] }); got != c.want {
			t.Errorf("dealTo(%d, %d, %v) = %d, want %d", c.self, c.mine, c.known, got, c.want)
		}
	}
}

func TestDealerTrailer(t *testing.T) {
	b := appendDealer(nil, 3, 12345)
	r, n, ok, err := decodeDealer(b, 4)
	if err != nil || !ok || r != 3 || n != 12345 {
		t.Errorf("round trip: %d %d %v %v", r, n, ok, err)
	}
	if _, _, ok, err := decodeDealer(nil, 4); ok || err != nil {
		t.Errorf("no trailer: %v %v", ok, err)
	}
	for _, bad := range [][]byte{b[:5], appendDealer(nil, 4, 1), append(b, 0)} {
		if _, _, _, err := decodeDealer(bad, 4); !errors.Is(err, ErrBadTree) {
			t.Errorf("%x: %v, want ErrBadTree", bad, err)
		}
	}
}
