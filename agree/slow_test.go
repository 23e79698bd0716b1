package agree

import (
	"fmt"
	"slices"
	"testing"
)

// delayNet runs a sim on a fair network that is slow next to the
// replicas' clocks: every message arrives exactly delay ticks after it
// was sent, in the order sent. It is what a loaded machine looks like
// to the protocol, where a replica waits long for a CPU while its
// ticker runs on.
type delayNet struct {
	s      *sim
	delay  int64
	now    int64
	flight []timed // by arrival tick
}

type timed struct {
	at int64
	m  Message
}

// step ticks every live replica once, then delivers the messages due;
// what they send takes delay ticks again.
func (d *delayNet) step() {
	d.now++
	for id := range d.s.nodes {
		if d.s.up[id] {
			d.s.tick(id)
		}
	}
	d.send()
	i := 0
	for i < len(d.flight) && d.flight[i].at <= d.now {
		i++
	}
	due := slices.Clone(d.flight[:i])
	d.flight = d.flight[i:]
	for _, t := range due {
		d.s.pool = append(d.s.pool[:0], t.m)
		d.s.deliver(0)
		d.send()
	}
}

// send puts what the replicas sent in flight.
func (d *delayNet) send() {
	for _, m := range d.s.pool {
		d.flight = append(d.flight, timed{d.now + d.delay, m})
	}
	d.s.pool = d.s.pool[:0]
}

// run steps until done reports true, at most steps times.
func (d *delayNet) run(steps int, done func() bool) bool {
	for range steps {
		if done() {
			return true
		}
		d.step()
	}
	return done()
}

// TestSlowNetworkReconfig loses the leader or the acceptor while every
// message takes delay ticks: the other two must choose a new view, which
// takes two round trips (Prepare and Promise, Vote and Voted), and then
// decide a value again. An attempt that gives up before its round trips
// end is begun again with a higher ballot, so with a fixed timeout of 20
// to 40 ticks and messages of 10 ticks or more no view was ever chosen;
// each attempt now waits twice as long as the one before.
func TestSlowNetworkReconfig(t *testing.T) {
	for _, delay := range []int64{2, 10, 25} {
		for _, lost := range []int{0, 1} { // the leader, the acceptor
			t.Run(fmt.Sprintf("delay=%d/lost=%d", delay, lost), func(t *testing.T) {
				s := newSim(t, 3, 1)
				d := &delayNet{s: s, delay: delay}
				s.propose(2, "before")
				if !d.run(500, s.allDecided([]string{"before"})) {
					t.Fatalf("no decision before the loss:\n%v", s)
				}
				s.crash(lost)
				s.propose(2, "after")
				if !d.run(3000, s.allDecided([]string{"after"})) {
					t.Fatalf("no decision within 3000 ticks of losing replica %d:\n%v", lost, s)
				}
				if st := s.nodes[2].Status(); st.Leader == lost || st.Acceptor == lost {
					t.Errorf("replica 2 decided in a view with the lost replica %d: %+v", lost, st)
				}
			})
		}
	}
}
