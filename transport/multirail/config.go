package multirail

import (
	"fmt"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// Defaults filled in by Config.Validate.
const (
	DefaultMaxMessage = 1 << 30
	DefaultWindow     = 64 << 20
	DefaultAckTimeout = 2 * time.Second
	DefaultSlice      = 2 << 20
	DefaultEager      = 32 << 10
)

// Config describes one end of a Link; both ends should agree on
// MaxMessage and Window.
type Config struct {
	// Split is how messages are divided among rails; zero means
	// SplitPlexus.
	Split Split
	// Strategy tunes SplitPlexus (rail.Config).
	Strategy rail.Config
	// MaxMessage is the longest message sent or accepted.
	MaxMessage int
	// Window is the most bytes of messages this end has sent and not yet
	// seen acknowledged, and the most it holds received but not yet
	// taken by Recv (beyond it, its rails stop reading).
	Window int
	// Slice is the longest message posted whole: a longer one is posted
	// a slice of this many bytes at a time, each split among the rails
	// when it is posted, while the rails have less than Ahead bytes
	// unacknowledged. Zero means DefaultSlice; negative, never slice.
	Slice int
	// Ahead is how many bytes unacknowledged on the rails the next slice
	// waits for the rails to go below; zero means two slices. A rail
	// about to run dry (one chunk unacknowledged on it, or none) is not
	// kept waiting: the next slice then goes while the rails hold less
	// than Ahead and a slice.
	Ahead int
	// Eager is the longest message that Send returns from once it is
	// written (or queued) rather than acknowledged, when it goes whole on
	// one rail; its acknowledgement is lazy (it leaves with the next
	// write on the rail). Zero means DefaultEager; negative, none.
	Eager int
	// Poll makes Recv read the rails itself for a short spin before it
	// sleeps: lower latency for a caller that waits for each message, for
	// a CPU spent while it waits. Leave it off for a goroutine that only
	// delivers what arrives.
	Poll bool
	// AckTimeout is the least time a chunk may go unacknowledged, beyond
	// twice its predicted transfer time, before its rail is taken for
	// failed and its chunks are sent again on the others.
	AckTimeout time.Duration
	// RailDown, if set, is called once for each rail that fails, with
	// why; the Link goes on over the others.
	RailDown func(rail int, err error)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Validate fills in the defaults and checks the rest.
func (c *Config) Validate() error {
	if c.Split == 0 {
		c.Split = SplitPlexus
	}
	if c.MaxMessage == 0 {
		c.MaxMessage = DefaultMaxMessage
	}
	if c.Window == 0 {
		c.Window = DefaultWindow
	}
	if c.AckTimeout == 0 {
		c.AckTimeout = DefaultAckTimeout
	}
	if c.Slice == 0 {
		c.Slice = DefaultSlice
	}
	if c.Eager == 0 {
		c.Eager = DefaultEager
	}
	if c.Ahead <= 0 {
		c.Ahead = 2 * max(c.Slice, 1)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	switch {
	case c.Split < SplitPlexus || c.Split > SplitSingle:
		return fmt.Errorf("multirail: split %d, want one of SplitPlexus..SplitSingle", c.Split)
	case c.MaxMessage < 0 || c.Window < 0 || c.AckTimeout < 0:
		return fmt.Errorf("multirail: MaxMessage %d, Window %d, AckTimeout %v: want none negative", c.MaxMessage, c.Window, c.AckTimeout)
	}
	c.Strategy.Validate()
	return nil
}
