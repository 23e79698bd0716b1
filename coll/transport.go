package coll

import (
	"fmt"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/ring"
)

// rings returns the teams' transport: a queue pair of two shared-memory
// rings (package ring) of slots cache-line slots each per link, Smelt's
// UMP channel (§4.1), with a signal line each way (see Signaler).
func rings(slots int) transport {
	return func(a, b int) (Link, Link, error) {
		x, y := ring.NewPairs(slots)
		ab, ba := new(signalLine), new(signalLine)
		return &ringLink{Pair: x, tx: ab, rx: ba}, &ringLink{Pair: y, tx: ba, rx: ab}, nil
	}
}

// ringLink is one end of a ring queue pair with its signal lines: it
// raises signals on tx and reads the other end's on rx. As on the rings,
// one goroutine may send (and Signal) and one receive (and read Signals)
// at a time.
type ringLink struct {
	*ring.Pair
	tx, rx *signalLine
}

// Signal raises the count on tx. Only this end's sender may call it.
func (l *ringLink) Signal() error {
	l.tx.n.Add(1)
	return nil
}

// Signals returns the count on rx; a ring link never fails. Only this
// end's receiver may call it.
func (l *ringLink) Signals() (uint64, error) { return l.rx.n.Load(), nil }

func (l *ringLink) signalWords() (tx, rx *atomic.Uint64) { return &l.tx.n, &l.rx.n }

// ringMax returns the longest message a ring of slots slots carries.
func ringMax(slots int) int { return slots / 2 * ring.SlotPayload }

// defaultRings checks Slots and MaxMessage against the rings' limits.
func (c *Config) defaultRings() error {
	if ring.RegionSize(c.Slots) < 0 {
		return fmt.Errorf("coll: %d ring slots: want a power of two in [%d, %d]", c.Slots, ring.MinSlots, ring.MaxSlots)
	}
	limit := ringMax(c.Slots)
	if c.MaxMessage == 0 {
		c.MaxMessage = limit
	}
	if c.MaxMessage > limit {
		return fmt.Errorf("coll: MaxMessage %d exceeds the %d bytes a ring of %d slots carries", c.MaxMessage, limit, c.Slots)
	}
	return nil
}

// transportOrRings returns the configured transport or the rings.
func (c *Config) transportOrRings() transport {
	if c.transport != nil {
		return c.transport
	}
	return rings(c.Slots)
}
