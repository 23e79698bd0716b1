package group

import (
	"sync/atomic"
	"time"
)

// Profile is where a team replica's busy time goes, per part of its
// loop, when TeamConfig.Profile is set: estimates over the sweeps that
// found work (the busy time of Load), from a sample of them timed part
// by part. A decision's fixed costs (reading links, taking clients'
// requests, applying) and the broadcast's (Broadcast at the acceptor,
// Relay at the tree's inner replicas) are told apart, so that one run
// says which one bounds the group's throughput.
type Profile struct {
	// Sweeps is how many sweeps found work.
	Sweeps int64
	// Backlog is sending frames that waited for room on a link.
	Backlog time.Duration
	// Links is reading the replica's links: polling them and taking the
	// frames off (on a machine of many cores, mostly the cache misses of
	// lines other replicas wrote).
	Links time.Duration
	// Relay is passing tree frames on to this replica's children.
	Relay time.Duration
	// Step is decoding the frames received and stepping the protocol
	// with their messages.
	Step time.Duration
	// Intake is the replica's channels: its callers' calls (Propose),
	// deliveries to its inbox and the ticks.
	Intake time.Duration
	// Broadcast is the replica's own broadcasts: the acceptor's accepts.
	Broadcast time.Duration
	// Send is direct sends (forwards to the leader, the leader's
	// proposals, the protocol's other messages).
	Send time.Duration
	// Apply is taking the node's Ready, applying the decisions and
	// compacting.
	Apply time.Duration
}

// Sub returns p minus an earlier reading e: the profile between the two.
func (p Profile) Sub(e Profile) Profile {
	return Profile{Sweeps: p.Sweeps - e.Sweeps, Backlog: p.Backlog - e.Backlog, Links: p.Links - e.Links,
		Relay: p.Relay - e.Relay, Step: p.Step - e.Step, Intake: p.Intake - e.Intake, Broadcast: p.Broadcast - e.Broadcast,
		Send: p.Send - e.Send, Apply: p.Apply - e.Apply}
}

// Parts returns the profile's parts by name, in loop order.
func (p Profile) Parts() []ProfilePart {
	return []ProfilePart{{"backlog", p.Backlog}, {"links", p.Links}, {"relay", p.Relay}, {"step", p.Step},
		{"intake", p.Intake}, {"broadcast", p.Broadcast}, {"send", p.Send}, {"apply", p.Apply}}
}

// ProfilePart is one named part of a Profile.
type ProfilePart struct {
	Name string
	Time time.Duration
}

// phase is the part of the loop a sampled sweep is in.
type phase uint8

const (
	phaseBacklog phase = iota
	phaseLinks
	phaseRelay
	phaseStep
	phaseIntake
	phaseBroadcast
	phaseSend
	phaseApply
	numPhases
)

// profileEvery is the sampling period: one sweep in profileEvery, on
// average, is timed part by part. Each part costs a clock read, several times a
// cheap sweep's own work, so timing every sweep would profile mostly
// the clock.
const profileEvery = 16

// probe times the parts of a replica's sampled sweeps.
//
// Concurrency: the replica's goroutine is the only one that writes;
// everything but shared is its own. It publishes the count of busy
// sweeps after each, and the sampled sums after each sampled one (atomic
// stores); Profile loads them from any goroutine, so a reading's sums
// may miss the sweeps since the last sample, a sixteenth of its sweeps
// at most.
type probe struct {
	on     bool // the current sweep is sampled
	cur    phase
	last   time.Duration
	sweep  [numPhases]time.Duration // the current sampled sweep's
	sum    [numPhases]time.Duration // all sampled busy sweeps'
	busy   int64                    // sweeps that found work
	timed  int64                    // of which sampled
	rng    uint32                   // xorshift state, never zero
	clock  func() time.Duration
	cost   time.Duration               // of one clock read, taken off each timed part
	shared [numPhases + 2]atomic.Int64 // estimates by phase, then busy, timed
}

// newProbe returns a probe on clock, whose cost per read it measures
// first.
func newProbe(clock func() time.Duration) *probe {
	return &probe{clock: clock, rng: 1, cost: readCost(clock)}
}

// readCost is the least time between two reads of clock, over a few:
// what each timed part includes of the clock's own cost, and is taken
// off it.
func readCost(clock func() time.Duration) time.Duration {
	least := time.Duration(1 << 62)
	last := clock()
	for range 64 {
		now := clock()
		least, last = min(least, now-last), now
	}
	return least
}

// begin starts a sweep, sampled with probability 1/profileEvery: at
// random (xorshift), since sampling every k-th sweep could keep missing
// the busy ones of a loop whose busy and idle sweeps alternate.
func (p *probe) begin() {
	if p == nil {
		return
	}
	p.rng ^= p.rng << 13
	p.rng ^= p.rng >> 17
	p.rng ^= p.rng << 5
	if p.rng%profileEvery != 0 {
		return
	}
	p.on, p.cur, p.sweep = true, phaseBacklog, [numPhases]time.Duration{}
	p.last = p.clock()
}

// enter switches a sampled sweep to phase ph and returns the phase it
// left, for leave.
func (p *probe) enter(ph phase) phase {
	if p == nil || !p.on {
		return ph
	}
	now := p.clock()
	p.sweep[p.cur] += max(0, now-p.last-p.cost)
	prev := p.cur
	p.cur, p.last = ph, now
	return prev
}

// end closes a sweep that found work (busy) or not, and publishes the
// totals after a sampled busy one.
func (p *probe) end(busy bool) {
	if p == nil {
		return
	}
	wasOn := p.on
	p.enter(p.cur)
	p.on = false
	if !busy {
		return
	}
	p.busy++
	p.shared[numPhases].Store(p.busy)
	if !wasOn {
		return
	}
	p.timed++
	for i, d := range p.sweep {
		p.sum[i] += d
	}
	p.publish()
}

func (p *probe) publish() {
	for i, d := range p.sum {
		p.shared[i].Store(int64(d))
	}
	p.shared[numPhases+1].Store(p.timed)
}

// profile returns the published estimates: each phase's sampled time
// scaled by the busy sweeps per sampled one.
func (p *probe) profile() Profile {
	if p == nil {
		return Profile{}
	}
	busy, timed := p.shared[numPhases].Load(), p.shared[numPhases+1].Load()
	est := func(ph phase) time.Duration {
		if timed == 0 {
			return 0
		}
		return time.Duration(float64(p.shared[ph].Load()) * float64(busy) / float64(timed))
	}
	return Profile{Sweeps: busy, Backlog: est(phaseBacklog), Links: est(phaseLinks), Relay: est(phaseRelay), Step: est(phaseStep),
		Intake: est(phaseIntake), Broadcast: est(phaseBroadcast), Send: est(phaseSend), Apply: est(phaseApply)}
}

// Profile returns the replica's profile so far: zero unless it runs on
// a Team made with TeamConfig.Profile. It may be called from any
// goroutine.
func (r *Replica) Profile() Profile { return r.prof.profile() }
