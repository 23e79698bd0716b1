package group

import (
	"testing"
	"time"
)

// TestLoadClock counts busy time from the first sweep that found work to
// the first that found none, reading the clock only at those changes.
func TestLoadClock(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(us int) time.Time { return t0.Add(time.Duration(us) * time.Microsecond) }
	var c loadClock
	c.start(t0)
	reads := 0
	clock := func(us int) func() time.Time {
		return func() time.Time { reads++; return at(us) }
	}
	c.idle(clock(5)) // idle before any work: nothing counted, no clock read
	c.busy(clock(10))
	c.busy(clock(12)) // still busy: no clock read
	c.busy(clock(15))
	c.idle(clock(30))
	c.idle(clock(40)) // still idle: no clock read
	c.busy(clock(50))
	c.idle(clock(53))
	if got, want := time.Duration(c.busyNs.Load()), 23*time.Microsecond; got != want {
		t.Errorf("busy %v, want %v", got, want)
	}
	if reads != 4 {
		t.Errorf("%d clock reads for 2 busy spans, want 4 (one at each change)", reads)
	}
	l := Load{Run: 10 * time.Second, Busy: 3 * time.Second}.Sub(Load{Run: 4 * time.Second, Busy: time.Second})
	if l != (Load{Run: 6 * time.Second, Busy: 2 * time.Second}) {
		t.Errorf("Sub = %+v", l)
	}
}
