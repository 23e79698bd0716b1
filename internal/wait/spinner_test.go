package wait

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestSpinnerAfter(t *testing.T) {
	k := Poller.Check
	cases := []struct {
		wakes, endless bool
		a              Action
		polls          int
		want           move
	}{
		{false, false, Poll, 1, move{}},
		{true, false, Pause, k, move{}}, // a poll is pause enough
		{false, false, Check, k, move{offer: true}},
		{true, false, Check, k, move{offer: true, gosched: true}},
		{true, false, Check, k + 1, move{offer: true}}, // Gosched only every Check polls
		{true, false, Yield, 2 * k, move{offer: true, gosched: true}},
		{false, false, Yield, 3, move{offer: true}},
		{true, false, Sleep, k, move{spent: true}},
		{false, true, Sleep, 5, move{offer: true, restart: true}},
		{true, true, Sleep, k, move{offer: true, gosched: true, restart: true}},
		{true, true, Check, 1, move{offer: true}},
	}
	for _, c := range cases {
		s := Spinner{Wakes: c.wakes, Endless: c.endless}
		if got := s.after(c.a, c.polls); got != c.want {
			t.Errorf("Spinner{Wakes: %v, Endless: %v}.after(%v, %d) = %+v, want %+v", c.wakes, c.endless, c.a, c.polls, got, c.want)
		}
	}
}

// spinTrace drives a Spinner's spins with twins of the CPU's offer and
// the clock, and records what a spin does, one letter a step: p a poll
// that found nothing, P one that found the event; a a question to
// arrived answered no, A yes; o an offer of the CPU, g one that lets
// goroutines run first; s a question to stop answered no, S yes.
type spinTrace struct {
	s      Spinner
	steps  strings.Builder
	yield  time.Duration // how long each offer of the CPU lasts
	now    time.Duration
	step   time.Duration // the clock's advance per read
	findAt int           // the poll that finds the event (0: none)
	arrive int           // the question to arrived answered yes (0: none)
	stopAt int           // the question to stop answered yes (0: none)
}

func newSpinTrace(wakes, endless bool) *spinTrace {
	tr := &spinTrace{s: Spinner{Wakes: wakes, Endless: endless}, yield: 20 * time.Microsecond}
	tr.s.offer = func(gosched bool) Ending {
		tr.note(gosched, "g", "o")
		return Ending{Yielded: true, Yield: tr.yield}
	}
	tr.s.clock = func() time.Duration { tr.now += tr.step; return tr.now }
	return tr
}

func (tr *spinTrace) note(yes bool, ifYes, ifNo string) bool {
	if yes {
		tr.steps.WriteString(ifYes)
	} else {
		tr.steps.WriteString(ifNo)
	}
	return yes
}

// spin runs one spin and returns its outcome and steps.
func (tr *spinTrace) spin() (Outcome, string) {
	tr.steps.Reset()
	asked, stops := 0, 0
	o := tr.s.Spin(
		func(n int) bool { return tr.note(n == tr.findAt, "P", "p") },
		func() bool { asked++; return tr.note(asked == tr.arrive, "A", "a") },
		func() bool { stops++; return tr.note(stops == tr.stopAt, "S", "s") })
	return o, tr.steps.String()
}

// TestSpinnerOrder checks the whole order of a spin's polls, offers and
// questions, under Poller and under SharedPoller, with the clock frozen
// or running out.
func TestSpinnerOrder(t *testing.T) {
	k := Poller.Check // Poller's Flat too: its first check is at poll k
	flat := strings.Repeat("pa", k-1)
	cases := []struct {
		name    string
		wakes   bool // the Spinner's fields
		endless bool
		shared  bool // the Company has learnt that the writer shares the CPU
		step    time.Duration
		findAt  int
		arrive  int
		stopAt  int
		want    Outcome
		steps   string
	}{
		{"arrived at once", true, false, false, 0, 0, 1, 0, Found, "A"},
		{"first poll", true, false, false, 0, 1, 0, 0, Found, "aP"},
		{"brought by another", true, false, false, 0, 0, 3, 0, Found, "apapA"},
		{"after a check", true, false, false, 0, k + 1, 0, 0, Found, "a" + flat + "pgsaP"},
		{"no gosched unless it wakes", false, false, false, 0, k + 1, 0, 0, Found, "a" + flat + "posaP"},
		{"gosched every check", true, false, false, 0, 2*k + 1, 0, 0, Found,
			"a" + flat + "pgsa" + flat + "pgsaP"},
		{"stopped", true, false, false, 0, 0, 0, 1, Stopped, "a" + flat + "pgS"},
		// The clock's first read, at poll k, starts it; the second, at
		// 2k, finds Spin passed.
		{"spent", true, false, false, Poller.Spin, 0, 0, 0, Spent, "a" + flat + "pgsa" + flat + "p"},
		{"endless", false, true, false, Poller.Spin, 3*k + 1, 0, 0, Found,
			"a" + flat + "posa" + flat + "posa" + flat + "posaP"},
		{"shared", true, false, true, 0, 3, 0, 0, Found, "aoposaposaP"},
		{"shared stopped", true, false, true, 0, 0, 0, 2, Stopped, "aoposapoS"},
		{"shared gosched", true, false, true, 0, k + 1, 0, 0, Found,
			"ao" + strings.Repeat("posa", k-1) + "pgsaP"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := newSpinTrace(c.wakes, c.endless)
			if c.shared {
				tr.s.company.score.Store(companyMax)
			}
			tr.step, tr.findAt, tr.arrive, tr.stopAt = c.step, c.findAt, c.arrive, c.stopAt
			if o, got := tr.spin(); o != c.want || got != c.steps {
				t.Errorf("spin = %v, %s\nwant %v, %s", o, got, c.want, c.steps)
			}
		})
	}
}

// TestSpinnerLearns runs spins whose events come right after an offer
// of the CPU that lasted so long, or without one, and checks after each
// that the Spinner has learnt what a Company told the same ending has:
// Together switches it to the shared policy after two spins, Apart
// back, a stranger's time slice and a first poll's find teach nothing.
func TestSpinnerLearns(t *testing.T) {
	us, ms := time.Microsecond, time.Millisecond
	together, apart := Ending{Yielded: true, Yield: 20 * us}, Ending{Yielded: true, Yield: us}
	steps := []struct {
		where  findAt
		yield  time.Duration // how long each offer of the CPU lasts
		taught *Ending       // what a Company learns from the spin
		shared bool          // whether the Spinner is shared after it
	}{
		{afterOffer, 20 * us, &together, false},
		{firstPoll, 20 * us, nil, false}, // may have come before the spin
		{afterOffer, 20 * us, &together, true},
		{afterOffer, 2 * ms, &Ending{Yielded: true, Yield: 2 * ms}, true},  // unknown
		{firstPoll, 30 * us, &Ending{Yielded: true, Yield: 30 * us}, true}, // after the offer first
		{afterOffer, us, &apart, true},                                     // nobody took the CPU
		{afterOffer, us, &apart, false},
		{laterPoll, 20 * us, &Ending{}, false}, // found with the CPU kept
		{afterOffer, 20 * us, &together, false},
	}
	tr := newSpinTrace(true, false)
	var ref Company
	for i, st := range steps {
		tr.yield, tr.findAt = st.yield, st.where.poll(tr.s.Shared())
		if o, _ := tr.spin(); o != Found {
			t.Fatalf("spin %d: %v, want found", i, o)
		}
		if st.taught != nil {
			ref.Learn(*st.taught)
		}
		got, want := tr.s.company.score.Load(), ref.score.Load()
		if got != want || tr.s.Shared() != st.shared {
			t.Fatalf("after spin %d: score %d, shared %v; a Company told the same: score %d; want shared %v", i, got, tr.s.Shared(), want, st.shared)
		}
	}
}

// findAt is where in a spin its event is found.
type findAt uint8

const (
	afterOffer findAt = 1 + iota // right after the spin's first offer of the CPU
	firstPoll                    // by the first poll
	laterPoll                    // by a later poll that no offer precedes (Poller only)
)

// poll returns the poll that finds the event at f, under SharedPoller if
// shared, else Poller.
func (f findAt) poll(shared bool) int {
	switch {
	case f == firstPoll:
		return 1
	case f == laterPoll:
		return 2
	case shared: // offers before the first poll and after each
		return 2
	}
	return Poller.Check + 1
}

// TestSpinnerPingPong passes a turn back and forth between two
// goroutines that wait for it with real offers of the CPU, each through
// its own Spinner or both through one (as a Link's Recv and Send spins
// share theirs): every turn is taken once, in order. Under -race it
// checks that spins may share a Spinner.
func TestSpinnerPingPong(t *testing.T) {
	turns := 2000
	if testing.Short() {
		turns = 200
	}
	for _, share := range []bool{false, true} {
		var turn atomic.Int64
		spinners := [2]*Spinner{{Endless: true}, {Endless: true}}
		if share {
			spinners[1] = spinners[0]
		}
		errs := make(chan error, 2)
		for side := range 2 {
			go func() { errs <- takeTurns(spinners[side], &turn, side, turns) }()
		}
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatalf("shared Spinner %v: %v", share, err)
			}
		}
		if got := turn.Load(); got != int64(2*turns) {
			t.Fatalf("shared Spinner %v: %d turns taken, want %d", share, got, 2*turns)
		}
	}
}

// takeTurns waits through s for each turn of side (even or odd) and
// passes it on.
func takeTurns(s *Spinner, turn *atomic.Int64, side, turns int) error {
	for i := range turns {
		want := int64(2*i + side)
		if o := s.Spin(func(int) bool { return turn.Load() == want }, nil, nil); o != Found {
			return fmt.Errorf("turn %d: spin %v", want, o)
		}
		if !turn.CompareAndSwap(want, want+1) {
			return fmt.Errorf("turn %d taken twice", want)
		}
	}
	return nil
}

// BenchmarkSpinnerLoop times the Spinner's own loop: spins whose poll is
// an atomic load that finds the event at poll=N, before Poller's first
// check, so that no offer of the CPU is made; ns/poll is what the loop
// adds to each poll, to set against the system call a real poll is
// (docs/benchmarks.md, "One spin for the Link and its floor").
func BenchmarkSpinnerLoop(b *testing.B) {
	for _, polls := range []int{1, Poller.Flat - 1} {
		b.Run(fmt.Sprintf("polls=%d", polls), func(b *testing.B) {
			var s Spinner
			var found atomic.Int64
			found.Store(int64(polls))
			poll := func(n int) bool { return int64(n) == found.Load() }
			b.ReportAllocs()
			for b.Loop() {
				if s.Spin(poll, nil, nil) != Found {
					b.Fatal("spin did not find the event")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*polls), "ns/poll")
		})
	}
}
