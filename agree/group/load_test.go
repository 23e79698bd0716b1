package group

import (
	"testing"
	"time"
)

// TestLoadClock counts busy time from the start of the first sweep that
// found work to the end of the first that found none, reading the clock
// at the start of idle sweeps and at the end of a busy span only.
func TestLoadClock(t *testing.T) {
	var now time.Duration
	reads := 0
	var c loadClock
	c.start(time.Unix(1000, 0), func() time.Duration { reads++; return now })
	sweep := func(from, to int, busy bool) {
		now = time.Duration(from) * time.Microsecond
		c.sweep()
		now = time.Duration(to) * time.Microsecond
		if busy {
			c.busy()
		} else {
			c.idle()
		}
	}
	sweep(0, 5, false) // idle before any work: nothing counted
	sweep(5, 10, true) // a span starts with this sweep, at 5
	sweep(10, 12, true)
	sweep(12, 15, true)
	sweep(15, 30, false) // it ends here, at 30: 25us
	sweep(30, 40, false)
	sweep(40, 50, true) // 40 to 53: 13us
	sweep(50, 53, false)
	if got, want := time.Duration(c.busyNs.Load()), 38*time.Microsecond; got != want {
		t.Errorf("busy %v, want %v", got, want)
	}
	if want := 4 + 2; reads != want { // the starts of the 4 sweeps begun idle, and each span's end
		t.Errorf("%d clock reads, want %d: at idle sweeps' starts and spans' ends only", reads, want)
	}
	l := Load{Run: 10 * time.Second, Busy: 3 * time.Second, Sleeps: 7}.Sub(Load{Run: 4 * time.Second, Busy: time.Second, Sleeps: 2})
	if l != (Load{Run: 6 * time.Second, Busy: 2 * time.Second, Sleeps: 5}) {
		t.Errorf("Sub = %+v", l)
	}
}
