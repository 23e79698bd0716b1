package wait

import (
	"testing"
	"time"
)

func TestEndingEvidence(t *testing.T) {
	us := time.Microsecond
	cases := []struct {
		e    Ending
		want Evidence
	}{
		{Ending{}, Apart},                         // found while polling, CPU kept
		{Ending{Yield: time.Hour}, Apart},         // no yield: its length is not looked at
		{Ending{Yielded: true, Yield: us}, Apart}, // nobody took the offer
		{Ending{Yielded: true, Yield: YieldRan - 1}, Apart},
		{Ending{Yielded: true, Yield: YieldRan}, Together}, // a peer's turn
		{Ending{Yielded: true, Yield: 20 * us}, Together},
		{Ending{Yielded: true, Yield: YieldPeer - 1}, Together},
		{Ending{Yielded: true, Yield: YieldPeer}, Unknown}, // a stranger's slice
		{Ending{Yielded: true, Yield: 3 * time.Millisecond}, Unknown},
	}
	for _, c := range cases {
		if got := c.e.Evidence(); got != c.want {
			t.Errorf("%+v.Evidence() = %v, want %v", c.e, got, c.want)
		}
	}
}

func TestLearn(t *testing.T) {
	cases := []struct {
		score int32
		ev    Evidence
		want  int32
	}{
		{0, Together, 1},
		{1, Together, 2},
		{companyMax, Together, companyMax},
		{companyMax, Apart, companyMax - 1},
		{1, Apart, 0},
		{0, Apart, 0},
		{0, Unknown, 0},
		{2, Unknown, 2},
	}
	for _, c := range cases {
		if got := learn(c.score, c.ev); got != c.want {
			t.Errorf("learn(%d, %v) = %d, want %d", c.score, c.ev, got, c.want)
		}
	}
}

// TestCompanySequence feeds a Company endings in turn and checks which
// policy it chooses after each: two endings in a row that say Together
// switch it, one stray one does not, and two that say Apart switch it
// back (the score counts up to 3 and the policy is shared from 2).
func TestCompanySequence(t *testing.T) {
	us := time.Microsecond
	apart := Ending{Yielded: true, Yield: us}
	together := Ending{Yielded: true, Yield: 20 * us}
	stranger := Ending{Yielded: true, Yield: 2 * time.Millisecond}
	steps := []struct {
		e      Ending
		shared bool
	}{
		{together, false},
		{apart, false}, // a stray Together is forgotten
		{together, false},
		{stranger, false}, // says nothing
		{together, true},
		{together, true},
		{together, true},
		{apart, true}, // one stray Apart does not switch back
		{together, true},
		{apart, true},
		{Ending{}, false}, // the second Apart in a row does
		{together, true},
		{apart, false},
		{apart, false},
		{together, false},
	}
	var c Company
	if c.Shared() || c.Choose(&Poller, &SharedPoller) != &Poller {
		t.Fatal("a zero Company chooses the shared policy")
	}
	for i, s := range steps {
		c.Learn(s.e)
		want := &Poller
		if s.shared {
			want = &SharedPoller
		}
		if c.Shared() != s.shared || c.Choose(&Poller, &SharedPoller) != want {
			t.Fatalf("after step %d (%+v): Shared() = %v, want %v", i, s.e, c.Shared(), s.shared)
		}
	}
}

// TestSharedPollerYieldsEveryPoll: a waiter that has learnt its peer
// shares the CPU offers it after every poll until Spin has passed.
func TestSharedPollerYieldsEveryPoll(t *testing.T) {
	for polls := 1; polls < 100; polls++ {
		if a := SharedPoller.Decide(polls, 0); a != Check {
			t.Fatalf("Decide(%d, 0) = %v, want check", polls, a)
		}
	}
	if a := SharedPoller.Decide(5, SharedPoller.Spin); a != Sleep {
		t.Fatalf("Decide past the spin = %v, want sleep", a)
	}
}
