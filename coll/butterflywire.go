package coll

import (
	"fmt"
	"slices"

	"github.com/plexus-hpc/plexus/tree"
)

// The butterfly's links (see butterfly.go): member i (by position) and
// i ^ 2^k for every round k among the first p members, and extra e with
// its host e-p. They are links of their own (LaneButterfly), so that the
// trees' and the dissemination barrier's message counts, which their
// correctness arguments rely on, stay as they were; each pair is linked
// once, since a pair is partners in one round at most and no host is a
// partner of its extra.

// butterflyPeers returns, for the member at position i of n, the
// positions of its partners by round and of its fold peer (-1 if none).
func butterflyPeers(i, n int) (partners []int, fold int) {
	p := largestPow2(n)
	fold = -1
	switch {
	case i >= p:
		return nil, i - p
	case i+p < n:
		fold = i + p
	}
	for d := 1; d < p; d <<= 1 {
		partners = append(partners, i^d)
	}
	return partners, fold
}

// usesButterfly reports whether the allreduce plan ever leaves the trees:
// teams whose plan does not are given no butterfly links.
func (c *Config) usesButterfly() bool {
	for _, a := range c.Allreduce.ByClass {
		if a != tree.AllreduceTrees {
			return true
		}
	}
	return false
}

// wireButterfly gives every member of an in-process team its butterfly
// links, if its plan uses them.
func (t *Team) wireButterfly(l *linker) error {
	if !t.cfg.usesButterfly() {
		return nil
	}
	n := len(t.members)
	for i, m := range t.members {
		partners, fold := butterflyPeers(i, n)
		get := func(j int) (end, error) {
			e, _, err := l.ends(m.cpu, t.members[j].cpu)
			return e, err
		}
		if err := m.bf.wire(i, n, partners, fold, get); err != nil {
			return err
		}
	}
	return nil
}

// butterfly wires the local member of a remote team as wireButterfly
// does.
func (w *remoteWiring) butterfly() error {
	if !w.m.team.cfg.usesButterfly() {
		return nil
	}
	ids := w.m.team.cfg.Broadcast.Members()
	i := slices.Index(ids, w.m.cpu)
	partners, fold := butterflyPeers(i, len(ids))
	get := func(j int) (end, error) { return w.end(ids[j], LaneButterfly) }
	return w.m.bf.wire(i, len(ids), partners, fold, get)
}

// largestPow2 is the largest power of two not above n ≥ 1.
func largestPow2(n int) int {
	p := 1
	for p*2 <= n {
		p *= 2
	}
	return p
}

// wire sets the member's place from its peers' positions, getting each
// end from get.
func (b *butterfly) wire(pos, n int, partners []int, fold int, get func(j int) (end, error)) error {
	b.pos, b.p = pos, largestPow2(n)
	for _, j := range partners {
		e, err := get(j)
		if err != nil {
			return err
		}
		b.partner = append(b.partner, e)
	}
	if fold < 0 {
		return nil
	}
	var err error
	b.fold, err = get(fold)
	b.hasFold = err == nil
	return err
}

// validateAllreduce checks the allreduce plan.
func (c *Config) validateAllreduce() error {
	if err := c.Allreduce.Validate(); err != nil {
		return fmt.Errorf("coll: %w", err)
	}
	return nil
}
