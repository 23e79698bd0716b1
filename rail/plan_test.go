package rail

import (
	"testing"
	"time"
)

// TestThreshold checks the split threshold found from the samples: none
// for one rail; for two equal rails the size from which half the
// transfer saves more than the offload cost, and it grows with that cost.
func TestThreshold(t *testing.T) {
	a := lin(t, "a", 20*time.Microsecond, 100e6) // 10 ns a byte
	if got := Threshold([]Rail{{Profile: a}}, Config{}); got != 0 {
		t.Errorf("one rail: threshold %d, want 0", got)
	}
	two := []Rail{{Profile: a}, {Profile: a}}
	// Halving n bytes saves 5n ns against an offload of 5 µs: n > 1000,
	// but no chunk under 4 KiB: 8 KiB.
	if got := Threshold(two, Config{}); got != 8<<10 {
		t.Errorf("two rails, offload 5 µs: threshold %d, want %d", got, 8<<10)
	}
	// An offload of 100 µs: 5n > 100,000 from n = 32 KiB.
	if got := Threshold(two, Config{Offload: 100 * time.Microsecond}); got != 32<<10 {
		t.Errorf("two rails, offload 100 µs: threshold %d, want %d", got, 32<<10)
	}
}

// TestPlanPacksAndSplits checks Plan on a queue of small and large
// messages: every message is sent exactly once, whole in a packet or
// covered by its chunks; runs of small messages are packed; packets of
// equal rails alternate as each makes its rail busy.
func TestPlanPacksAndSplits(t *testing.T) {
	a := lin(t, "a", 20*time.Microsecond, 100e6)
	rails := []Rail{{Profile: a}, {Profile: a}}
	sizes := []int{100, 200, 300, 1 << 20, 50, 64 << 10, 64 << 10}
	cfg := Config{Threshold: 512 << 10}
	sends, busy := Plan(rails, sizes, cfg)
	covered := make([]int, len(sizes))
	for _, s := range sends {
		if s.Count > 1 || s.Len == sizes[s.Msg] {
			for m := s.Msg; m < s.Msg+s.Count; m++ {
				covered[m] += sizes[m]
			}
		} else {
			covered[s.Msg] += s.Len
		}
		if s.Done > busy[s.Rail] {
			t.Errorf("send %+v ends after its rail's final busy time %v", s, busy[s.Rail])
		}
	}
	for m, n := range sizes {
		if covered[m] != n {
			t.Errorf("message %d of %d bytes: %d sent (%+v)", m, n, covered[m], sends)
		}
	}
	if len(sends) != 6 {
		t.Fatalf("sends %+v: want 6 (a packet, 2 chunks, 3 packets)", sends)
	}
	if sends[0].Rail != 0 || sends[0].Count != 3 || sends[0].Len != 600 {
		t.Errorf("first send %+v, want a packet of 3 messages, 600 bytes, on rail 0", sends[0])
	}
	if sends[1].Msg != 3 || sends[2].Msg != 3 || sends[1].Rail == sends[2].Rail {
		t.Errorf("sends 1 and 2 %+v %+v: want message 3 split over both rails", sends[1], sends[2])
	}
	// The 50-byte message fits no packet with the next 64 KiB one.
	if sends[3].Msg != 4 || sends[3].Count != 1 || sends[4].Msg != 5 || sends[5].Msg != 6 || sends[4].Rail == sends[5].Rail {
		t.Errorf("sends 3-5 %+v: want 50 B, then two 64 KiB packets on different rails", sends[3:6])
	}
}
