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

// TestSlowNetworkReconfig loses the leader, the acceptor or the third
// replica of 3 (crashed, or restarted with its state lost, as kv's
// restart test does) while every message takes delay ticks, with several
// seeds: the others must go on deciding, which after losing the
// leader or the acceptor means choosing a new view in two round trips
// (Prepare and Promise, Vote and Voted) and hearing its leader before
// they suspect it. With a fixed timeout of 20 to 40 ticks no view was
// chosen at 10 ticks a message or more (an attempt that gives up before
// its round trips end is begun again with a higher ballot), and at 40
// new views whose leader's first heartbeat came too late were replaced
// again and again; the timeouts now double with every choice a replica
// begins until its epoch decides.
func TestSlowNetworkReconfig(t *testing.T) {
	seeds := uint64(12)
	if testing.Short() {
		seeds = 4
	}
	for _, delay := range []int64{2, 10, 25, 40} {
		for lost := range 3 {
			for _, restart := range []bool{false, true} {
				for seed := range seeds {
					t.Run(fmt.Sprintf("delay=%d/lost=%d/restart=%v/seed=%d", delay, lost, restart, seed), func(t *testing.T) {
						slowLoss(t, seed, delay, lost, restart)
					})
				}
			}
		}
	}
}

// slowLoss decides a value, loses replica lost (crashed, or restarted
// with its state lost) and decides another at a live replica, on a
// delayNet of 3 replicas.
func slowLoss(t *testing.T, seed uint64, delay int64, lost int, restart bool) {
	s := newSim(t, 3, seed)
	d := &delayNet{s: s, delay: delay}
	s.propose(2, "before")
	if !d.run(3000, s.allDecided([]string{"before"})) {
		t.Fatalf("no decision before the loss:\n%v", s)
	}
	if restart {
		s.restart(lost) // it takes no role in the epochs it may have acted in
	} else {
		s.crash(lost)
	}
	s.propose((lost+1)%3, "after")
	if !d.run(5000, s.allDecided([]string{"after"})) {
		t.Fatalf("no decision within 5000 ticks of losing replica %d:\n%v", lost, s)
	}
	if restart || lost == 2 {
		return // a restarted replica may lead a later view; the third had no role
	}
	for id, n := range s.nodes {
		if st := n.Status(); s.up[id] && (st.Leader == lost || st.Acceptor == lost) {
			t.Errorf("replica %d decided in a view with the lost replica %d: %+v", id, lost, st)
		}
	}
}
