package am

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"
)

// Defaults for Config.
const (
	// DefaultFlushBytes is Grappa's aggregation buffer size: large enough
	// that a network packet's fixed costs vanish, small enough to fill.
	DefaultFlushBytes = 4 << 10
	// DefaultFlushAge bounds how long a message waits in a buffer: long
	// enough that busy senders fill packets, short enough that a lone
	// message is not held past the order of a millisecond (Grappa's paper,
	// §3.3, tunes the same knob).
	DefaultFlushAge = time.Millisecond
	// DefaultMaxArgs is the longest argument or reply of one message.
	DefaultMaxArgs = 16 << 10
	// DefaultTag is the first of the two comm tags the engine uses.
	DefaultTag = 0x616d0000
)

// Config tunes an engine. Zero fields mean the defaults; every rank must
// use the same FlushBytes, MaxArgs and Tag.
type Config struct {
	// FlushBytes sends a destination's buffer once it holds this many
	// bytes. 1 sends every message alone (no aggregation).
	FlushBytes int
	// FlushAge sends a buffer whose oldest message has waited this long.
	FlushAge time.Duration
	// MaxArgs is the longest args of a Call or Post, and reply of a
	// handler; longer ones fail with ErrTooLarge.
	MaxArgs int
	// Tag and Tag+1 are the comm tags of the engine's packets and of New's
	// handshake; the program must not use them for its own messages, and
	// two engines on one world need Tags two apart.
	Tag int
	// NodeAggregation makes the ranks of one host combine their messages
	// towards each other host: one rank of the host sends them all, in
	// one stream, to one rank there, which hands them on (Grappa's
	// node-level aggregator). Order per source and destination, Call
	// replies and loss errors are as without it; a relayed message takes
	// up to two more hops over shared memory. Off by default (see
	// docs/benchmarks.md, "Node-level aggregation"). Every rank must set
	// it alike; New fails with ErrMismatch otherwise. Ranks share a host
	// when comm.World.Transport says "shm".
	NodeAggregation bool
	// Logger receives what has no caller to return to: a Post's handler
	// error, a malformed packet (Warn). Nil means slog.Default().
	Logger *slog.Logger

	// leaders, for tests, replaces what the world's transports say: each
	// rank's leader, the lowest rank on its host.
	leaders []int
}

func (c Config) withDefaults() Config {
	if c.FlushBytes == 0 {
		c.FlushBytes = DefaultFlushBytes
	}
	if c.FlushAge == 0 {
		c.FlushAge = DefaultFlushAge
	}
	if c.MaxArgs == 0 {
		c.MaxArgs = DefaultMaxArgs
	}
	if c.Tag == 0 {
		c.Tag = DefaultTag
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Validate reports what is wrong with c, after defaults.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if c.FlushBytes < 1 || c.FlushBytes > 1<<24 {
		errs = append(errs, fmt.Errorf("am: FlushBytes %d outside [1, 16 MiB]", c.FlushBytes))
	}
	if c.FlushAge < 0 {
		errs = append(errs, fmt.Errorf("am: negative FlushAge %v", c.FlushAge))
	}
	if c.MaxArgs < 0 || c.MaxArgs > 1<<24 {
		errs = append(errs, fmt.Errorf("am: MaxArgs %d outside [0, 16 MiB]", c.MaxArgs))
	}
	if c.Tag < 0 || c.Tag >= math.MaxInt32 {
		errs = append(errs, fmt.Errorf("am: Tag %d outside [0, %d)", c.Tag, math.MaxInt32))
	}
	return errors.Join(errs...)
}

// maxPacket is the longest packet: a buffer just under FlushBytes plus
// the largest message in a relay envelope.
func (c Config) maxPacket() int { return c.FlushBytes - 1 + 2*maxHeader + c.MaxArgs + trailerLen }
