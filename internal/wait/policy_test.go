package wait

import (
	"testing"
	"time"
)

var testPolicy = Policy{Flat: 4, Spin: 10 * time.Microsecond, YieldFor: 5 * time.Microsecond, Check: 8, MaxPause: 3}

func TestDecide(t *testing.T) {
	us := time.Microsecond
	cases := []struct {
		polls   int
		elapsed time.Duration
		want    Action
	}{
		{1, 0, Poll},
		{3, time.Hour, Poll}, // flat polls never look at the clock
		{4, 0, Pause},
		{7, 9 * us, Pause},
		{8, 0, Check},
		{16, 9 * us, Check},
		{9, 10 * us, Yield},
		{16, 14 * us, Yield},
		{17, 15 * us, Sleep},
		{1 << 20, time.Hour, Sleep},
	}
	for _, c := range cases {
		if got := testPolicy.Decide(c.polls, c.elapsed); got != c.want {
			t.Errorf("Decide(%d, %v) = %v, want %v", c.polls, c.elapsed, got, c.want)
		}
	}
}

func TestPauseLen(t *testing.T) {
	for polls, want := range map[int]int{4: 1, 5: 2, 6: 3, 7: 3, 100: 3, 0: 1} {
		if got := testPolicy.PauseLen(polls); got != want {
			t.Errorf("PauseLen(%d) = %d, want %d", polls, got, want)
		}
	}
}

// TestWaiterPhases drives a Waiter with a clock that advances 1 µs per
// read and checks the whole sequence of actions and clock reads.
func TestWaiterPhases(t *testing.T) {
	var now time.Duration
	reads := 0
	w := newTestWaiter(&testPolicy, func() time.Duration { reads++; now += time.Microsecond; return now })
	var got []Action
	for range 40 {
		if a := w.Next(); len(got) == 0 || got[len(got)-1] != a || a == Check {
			got = append(got, a)
		}
	}
	// Flat polls 1-3; the first read at poll 4 starts the clock (pause);
	// reads every 8 polls while spinning: 8, 16, 24, ... each 1 µs on; so
	// elapsed reaches Spin (10 µs) only after 10 reads: by then polls are
	// past the spin, and every poll in Yield and Sleep reads the clock.
	want := []Action{Poll, Pause, Check, Pause, Check, Pause, Check, Pause, Check, Pause}
	if !equal(got[:len(want)], want) {
		t.Fatalf("actions %v, want prefix %v", got, want)
	}
	if w.Polls() != 40 {
		t.Errorf("Polls() = %d, want 40", w.Polls())
	}
	if reads != 1+40/8 {
		t.Errorf("%d clock reads in 40 spinning polls, want %d", reads, 1+40/8)
	}
	for w.Elapsed() < testPolicy.Spin {
		w.Next()
	}
	if a := w.Next(); a != Yield && a != Pause {
		t.Errorf("first action after the spin budget: %v", a)
	}
	for range 5 {
		w.Next()
	}
	if a := w.Next(); a != Sleep {
		t.Errorf("after Spin+YieldFor: %v, want sleep", a)
	}
	w.Restart()
	if a := w.Next(); a != Poll || w.Polls() != 1 {
		t.Errorf("after Restart: %v with %d polls, want poll with 1", a, w.Polls())
	}
}

func TestPoliciesOrdered(t *testing.T) {
	for name, p := range map[string]*Policy{"Owned": &Owned, "Pinned": &Pinned, "Shared": &Shared, "Helper": &Helper, "Poller": &Poller} {
		if p.Flat <= 0 || p.Check <= 0 || p.MaxPause <= 0 || p.Spin <= 0 || p.YieldFor < 0 {
			t.Errorf("%s: budgets %+v must be positive", name, *p)
		}
	}
	if Shared.Spin >= Owned.Spin || Helper.Spin > Owned.Spin {
		t.Errorf("a waiter sharing its CPU must spin less than one owning it: %v, %v vs %v", Shared.Spin, Helper.Spin, Owned.Spin)
	}
	if !Pinned.OSYield || Owned.OSYield {
		t.Error("only Pinned yields the thread's CPU")
	}
	if StandAside < 2*Poller.Spin {
		t.Errorf("StandAside %v must outlast a poller's spin %v", StandAside, Poller.Spin)
	}
}

func equal(a, b []Action) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
