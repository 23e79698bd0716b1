package coll

import (
	"fmt"

	"github.com/plexus-hpc/plexus/ring"
)

// Rings returns the default transport: a queue pair of two shared-memory
// rings (package ring) of slots cache-line slots each per link, Smelt's
// UMP channel (§4.1).
func Rings(slots int) Transport {
	return func(a, b int) (Link, Link, error) {
		x, y := ring.NewPairs(slots)
		return x, y, nil
	}
}

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

// transport returns the configured transport or the default rings.
func (c *Config) transport() Transport {
	if c.Transport != nil {
		return c.Transport
	}
	return Rings(c.Slots)
}
