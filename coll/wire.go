package coll

import "fmt"

// linker makes one link per unordered pair of members and hands out its
// ends, so that trees sharing an edge share its queue pair: each
// direction is still used in the members' common program order, which
// keeps every message matched with the operation that expects it.
type linker struct {
	transport transport
	pairs     map[[2]int][2]end
	door      func(cpu int) *door // the door of member cpu
}

func newLinker(t transport, door func(cpu int) *door) *linker {
	return &linker{transport: t, pairs: map[[2]int][2]end{}, door: door}
}

// ends returns a's and b's ends of the link between them.
func (l *linker) ends(a, b int) (end, end, error) {
	key := [2]int{min(a, b), max(a, b)}
	p, ok := l.pairs[key]
	if !ok {
		x, y, err := l.transport(key[0], key[1])
		if err != nil {
			return end{}, end{}, fmt.Errorf("coll: link between CPUs %d and %d: %w", key[0], key[1], err)
		}
		p = [2]end{newEnd(x), newEnd(y)}
		p[0].peer, p[1].peer = l.door(key[1]), l.door(key[0])
		l.pairs[key] = p
	}
	if a == key[0] {
		return p[0], p[1], nil
	}
	return p[1], p[0], nil
}

// wire gives every member its links: parent and children in both trees,
// then the dissemination barrier's and the butterfly's, on links of their
// own.
func (t *Team) wire() error {
	tr := t.cfg.transportOrRings()
	trees := newLinker(tr, t.doorOf)
	for _, m := range t.members {
		if err := m.wireTrees(trees); err != nil {
			return err
		}
	}
	t.signals = trees.signals()
	if err := t.wireDissemination(newLinker(tr, t.doorOf)); err != nil {
		return err
	}
	return t.wireButterfly(newLinker(tr, t.doorOf))
}

// signals reports whether both ends of every link carry signals. The
// choice is the team's, not a member's or a link's, so that the two ends
// of every link agree on whether a barrier sends signals or messages.
func (l *linker) signals() bool {
	for _, p := range l.pairs {
		if p[0].sig == nil || p[1].sig == nil {
			return false
		}
	}
	return true
}

func (m *Member) wireTrees(l *linker) error {
	cfg := &m.team.cfg
	for _, c := range cfg.Broadcast.Children[m.cpu] {
		down, up, err := l.ends(m.cpu, c)
		if err != nil {
			return err
		}
		m.bkids = append(m.bkids, down)
		m.team.member(c).bparent = up
	}
	for _, c := range cfg.Reduce.Children[m.cpu] {
		down, up, err := l.ends(m.cpu, c)
		if err != nil {
			return err
		}
		m.rkids = append(m.rkids, down)
		m.team.member(c).rparent = up
	}
	m.pending = make([]int, 0, len(m.rkids))
	return nil
}

// wireDissemination links, in round r, member i (by position) to member
// (i+2^r) mod n. A direction is used in one round only: two rounds a < b
// would need n to divide 2^b - 2^a, which lies strictly between 0 and n.
func (t *Team) wireDissemination(l *linker) error {
	n := len(t.members)
	for d := 1; d < n; d <<= 1 {
		for i, m := range t.members {
			peer := t.members[(i+d)%n]
			out, in, err := l.ends(m.cpu, peer.cpu)
			if err != nil {
				return err
			}
			m.dissOut = append(m.dissOut, out)
			peer.dissIn = append(peer.dissIn, in)
		}
	}
	return nil
}
