package coll

import (
	"fmt"
	"slices"
)

// Lane tells apart the independent links a team keeps between two of its
// members: one for the edges of its trees (shared by both trees, as in
// NewTeam) and one for the dissemination barrier.
type Lane int

// The lanes.
const (
	// LaneTrees carries the broadcast and reduction trees' messages and
	// signals.
	LaneTrees Lane = 1 + iota
	// LaneDissemination carries DisseminationBarrier's messages.
	LaneDissemination
	// LaneButterfly carries the messages of Allreduce's recursive
	// doubling and Rabenseifner algorithms.
	LaneButterfly
)

// Dialer returns this member's end of the link to peer on lane. The link's
// other end is the one peer's Dialer returns for this member and lane.
// NewMember calls it once per peer and lane that the member uses.
type Dialer func(peer int, lane Lane) (Link, error)

// NewMember makes the one local member, self, of a team whose other
// members live elsewhere — in other processes, one member each — and are
// reached through dial. It is how ranks run the collectives of this
// package: every rank calls NewMember with the same trees and its own
// rank as self, and the same member code then runs over links between
// processes that runs over rings inside one.
//
// Members are named by whatever numbers the trees use (ranks, say);
// cfg.Pin must be false and cfg.Slots is ignored.
// cfg.MaxMessage (zero means DefaultMaxMessage) must be the same on every
// member. All members' links must agree on carrying signals (Signaler) or
// not, which holds when every rank dials links of one kind.
//
// The member's team holds it alone: Team.Size and Team.Members count only
// it, Team.Root is nil unless self is the root, and Team.Close and the
// member's failures end only this process's view of the team. Telling the
// other members is the links' business (see comm.World.AbortLinks).
func NewMember(cfg Config, self int, dial Dialer) (*Member, error) {
	if err := cfg.validateRemote(self); err != nil {
		return nil, err
	}
	t := &Team{cfg: cfg}
	m := newMember(t, self)
	t.members = []*Member{m}
	w := remoteWiring{m: m, dial: dial, ends: map[laneKey]end{}}
	if err := w.trees(); err != nil {
		return nil, err
	}
	if err := w.dissemination(); err != nil {
		return nil, err
	}
	if err := w.butterfly(); err != nil {
		return nil, err
	}
	t.signals = w.signals()
	ringBells(m)
	return m, nil
}

// validateRemote is Validate for a team with one local member.
func (c *Config) validateRemote(self int) error {
	switch {
	case c.Broadcast == nil:
		return fmt.Errorf("coll: config has no broadcast tree")
	case c.Pin:
		return fmt.Errorf("coll: a remote team's member %d cannot be pinned: members are not CPUs", self)
	case c.MaxMessage < 0:
		return fmt.Errorf("coll: config has negative MaxMessage (%d)", c.MaxMessage)
	}
	if err := c.Broadcast.Validate(); err != nil {
		return fmt.Errorf("coll: broadcast tree: %w", err)
	}
	if err := c.validateReduce(); err != nil {
		return err
	}
	if _, ok := c.Broadcast.Children[self]; !ok {
		return fmt.Errorf("coll: member %d is not in the trees (members %v)", self, c.Broadcast.Members())
	}
	if c.MaxMessage == 0 {
		c.MaxMessage = DefaultMaxMessage
	}
	return c.validateAllreduce()
}

type laneKey struct {
	peer int
	lane Lane
}

// remoteWiring gives the local member its ends, one per peer and lane, so
// that the two trees share an edge's link as NewTeam's linker makes them.
type remoteWiring struct {
	m    *Member
	dial Dialer
	ends map[laneKey]end
}

// end returns the member's end towards peer on lane, dialling it once.
func (w *remoteWiring) end(peer int, lane Lane) (end, error) {
	k := laneKey{peer, lane}
	if e, ok := w.ends[k]; ok {
		return e, nil
	}
	l, err := w.dial(peer, lane)
	if err != nil {
		return end{}, fmt.Errorf("coll: link from member %d to %d: %w", w.m.cpu, peer, err)
	}
	e := newEnd(l)
	w.ends[k] = e
	return e, nil
}

// trees wires the parent and children in both trees.
func (w *remoteWiring) trees() error {
	cfg, m := &w.m.team.cfg, w.m
	var err error
	if m.bkids, err = w.kids(cfg.Broadcast.Children[m.cpu]); err != nil {
		return err
	}
	if m.rkids, err = w.kids(cfg.Reduce.Children[m.cpu]); err != nil {
		return err
	}
	m.pending = make([]int, 0, len(m.rkids))
	if m.root {
		return nil
	}
	if m.bparent, err = w.end(cfg.Broadcast.Parent()[m.cpu], LaneTrees); err != nil {
		return err
	}
	m.rparent, err = w.end(cfg.Reduce.Parent()[m.cpu], LaneTrees)
	return err
}

func (w *remoteWiring) kids(ids []int) ([]end, error) {
	ends := make([]end, 0, len(ids))
	for _, c := range ids {
		e, err := w.end(c, LaneTrees)
		if err != nil {
			return nil, err
		}
		ends = append(ends, e)
	}
	return ends, nil
}

// dissemination wires the rounds of DisseminationBarrier as
// Team.wireDissemination does, seen from one member.
func (w *remoteWiring) dissemination() error {
	ids := w.m.team.cfg.Broadcast.Members()
	n := len(ids)
	i := slices.Index(ids, w.m.cpu)
	for d := 1; d < n; d <<= 1 {
		out, err := w.end(ids[(i+d)%n], LaneDissemination)
		if err != nil {
			return err
		}
		in, err := w.end(ids[(i-d%n+n)%n], LaneDissemination)
		if err != nil {
			return err
		}
		w.m.dissOut = append(w.m.dissOut, out)
		w.m.dissIn = append(w.m.dissIn, in)
	}
	return nil
}

// signals reports whether every tree end carries signals.
func (w *remoteWiring) signals() bool {
	for k, e := range w.ends {
		if k.lane == LaneTrees && e.sig == nil {
			return false
		}
	}
	return true
}
