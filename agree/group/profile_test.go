package group

import (
	"context"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/agree"
)

// TestProbe drives a probe with a clock that costs 10ns per read: the
// sampled busy sweeps' parts, less the reads, stand for every busy
// sweep; idle sweeps count for nothing.
func TestProbe(t *testing.T) {
	var now time.Duration
	p := newProbe(func() time.Duration { now += 10; return now })
	if p.cost != 10 {
		t.Fatalf("clock read cost %v, want 10ns", p.cost)
	}
	const sweeps = 64 * profileEvery
	for n := range sweeps {
		p.begin()
		now += 20
		p.enter(phaseLinks) // backlog: 20
		now += 30
		p.enter(phaseSend) // links: 30
		now += 40
		p.enter(phaseLinks) // send: 40
		now += 50
		p.end(n%2 == 0) // links again: 50; every other sweep is busy
	}
	if p.timed < 8 || p.timed > sweeps/profileEvery {
		t.Fatalf("%d busy sweeps of %d sampled: not one in %d", p.timed, sweeps/2, profileEvery)
	}
	busy := time.Duration(sweeps / 2)
	want := Profile{Sweeps: sweeps / 2, Backlog: 20 * busy, Links: 80 * busy, Send: 40 * busy}
	if got := p.profile(); got != want {
		t.Errorf("profile %+v, want %+v", got, want)
	}
	if (*probe)(nil).profile() != (Profile{}) {
		t.Error("a nil probe has a profile")
	}
}

// TestTeamProfile runs a profiled team of 3: the acceptor's time shows
// in broadcasts, the leader's in sends; an unprofiled team has none.
func TestTeamProfile(t *testing.T) {
	for _, on := range []bool{true, false} {
		rs := runProfiled(t, on, 200)
		acc, lead := rs[1].Profile(), rs[0].Profile()
		if !on {
			if acc != (Profile{}) || lead != (Profile{}) {
				t.Errorf("unprofiled team: acceptor %+v, leader %+v", acc, lead)
			}
			continue
		}
		if acc.Sweeps == 0 || acc.Broadcast <= 0 || lead.Send <= 0 || lead.Links <= 0 {
			t.Errorf("profiled team: acceptor %+v, leader %+v", acc, lead)
		}
		for _, p := range append(acc.Parts(), lead.Parts()...) {
			if p.Time < 0 {
				t.Errorf("part %s: %v", p.Name, p.Time)
			}
		}
	}
}

// runProfiled runs a team of 3, profiled or not, until count values
// proposed at replica 2 are applied there, and returns its replicas.
func runProfiled(t *testing.T, profile bool, count int) []*Replica {
	team, err := NewTeam(TeamConfig{Replicas: 3, Mode: Tree, Profile: profile})
	if err != nil {
		t.Fatal(err)
	}
	applied := make(chan struct{}, count)
	var rs []*Replica
	for id := range 3 {
		r, err := New(Config{Agree: agree.Config{ID: id, Replicas: 3}, BroadcastBatch: 1,
			Apply: func(agree.Entry) {
				if id == 2 {
					applied <- struct{}{}
				}
			}}, team.Net(id))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	team.Attach(rs)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 3)
	for _, r := range rs {
		go func() { _ = r.Run(ctx); done <- struct{}{} }()
	}
	defer func() { cancel(); <-done; <-done; <-done }()
	for i := range count {
		if err := rs[2].Propose(ctx, []byte{byte(i), byte(i >> 8), 1}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-applied:
		case <-time.After(10 * time.Second):
			t.Fatalf("value %d not applied within 10s", i)
		}
	}
	return rs
}
