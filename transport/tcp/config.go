package tcp

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// Defaults filled in by Config.Validate.
const (
	// DefaultListen is the listen address: loopback only, any port. Jobs
	// that span hosts must name an interface the other hosts can reach.
	DefaultListen = "127.0.0.1:0"
	// DefaultMaxPayload is the longest payload a frame may carry.
	DefaultMaxPayload = 4 << 20
	// DefaultHandshakeTimeout bounds every handshake, so that a silent
	// stranger holds a goroutine no longer than this.
	DefaultHandshakeTimeout = 5 * time.Second
	// DefaultPreAuthTimeout bounds how long an accepted connection may
	// take to send its proof. A rank sends it within a round trip of the
	// Hello, so only strangers wait this long, and their handshake slots
	// come free sooner than the whole handshake's bound.
	DefaultPreAuthTimeout = 2 * time.Second
	// DefaultQueueBytes is how many bytes of frames may wait for a
	// connection's sender before Send blocks.
	DefaultQueueBytes = 4 << 20
	// MinSecret is the shortest accepted job secret.
	MinSecret = 16
	// MaxJobID is the longest accepted job id.
	MaxJobID = 255
)

// Config describes an Endpoint. Validate fills in its defaults.
type Config struct {
	// Rank is this process's rank, in [0, Size).
	Rank int
	// Size is the number of ranks in the job.
	Size int
	// JobID names the job; peers of another job are refused.
	JobID string
	// Secret is the per-job key both sides prove they hold; it never
	// crosses the wire. At least MinSecret bytes. A job of more than one
	// rank needs Secret or Key.
	Secret []byte
	// Key, when Secret is nil, returns the job secret once it is known,
	// for an Endpoint that must listen before it learns the secret (from
	// the same exchange that publishes its address). It is called by
	// handshakes, from their own goroutines, and may block until ctx
	// ends; each handshake waits for it within HandshakeTimeout, and
	// fails (refusing the dialer) if the key is not known by then or is
	// shorter than MinSecret. The first key returned is kept.
	Key func(ctx context.Context) ([]byte, error)
	// Addrs returns the listen address of a rank (the launcher's address
	// book). It is called when a connection is first needed, from the
	// goroutine that dials, and may block until the address is known.
	Addrs func(rank int) (string, error)
	// Listen is the address to listen on; empty means DefaultListen.
	Listen string
	// MaxPayload is the longest payload sent or accepted; zero means
	// DefaultMaxPayload. Each connection may hold a buffer of this size.
	MaxPayload int
	// HandshakeTimeout bounds each handshake; zero means
	// DefaultHandshakeTimeout. A dial that fails before the acceptor
	// answers (the connection closed or timed out, as an acceptor
	// shedding a flood of strangers does) is tried again, with backoff,
	// for up to the longer of HandshakeTimeout and PeerTimeout.
	HandshakeTimeout time.Duration
	// PreAuthTimeout bounds how long the acceptor waits for a dialer's
	// proof after its Hello; zero means DefaultPreAuthTimeout, and it is
	// never more than HandshakeTimeout.
	PreAuthTimeout time.Duration
	// Heartbeat, if positive, sends a Ping on every connection this often,
	// and declares a peer lost when nothing arrived from it for
	// PeerTimeout. Zero turns heartbeats off: a dead peer is then noticed
	// only when its connection reports an error.
	Heartbeat time.Duration
	// PeerTimeout is how long a peer may stay silent when Heartbeat is on;
	// zero means 4 × Heartbeat. A rank with heartbeats off answers every
	// Ping, so ranks may differ in this setting.
	PeerTimeout time.Duration
	// UserTimeout, if positive, has the kernel end a connection whose
	// sent data stays unacknowledged this long (TCP_USER_TIMEOUT, Linux
	// only). A peer's kernel acknowledges however busy the peer is, so
	// this notices a host that vanished (powered off, its link down)
	// without mistaking a slow rank for a dead one; heartbeats make sure
	// there is data to acknowledge. Zero leaves the system's default,
	// which retries for many minutes.
	UserTimeout time.Duration
	// QueueBytes bounds the frames queued per connection; zero means
	// DefaultQueueBytes. A frame is always admitted to an empty queue.
	QueueBytes int
	// Deliver receives every Eager, RTS, CTS, Data and Credit frame. It is
	// called from the connection's reader goroutine or from a goroutine in
	// Endpoint.Poll, one frame at a time per peer, in the order the peer
	// sent them; frames from different
	// peers arrive concurrently. The payload is valid only during the call.
	// Deliver should not block: while it runs, nothing more is read from
	// that peer, and a Deliver that waits on a Send to the same peer can
	// deadlock with it.
	Deliver func(peer int, h frame.Header, payload []byte)
	// Lost, if set, is called once for each peer whose connection ended
	// other than by this Endpoint's Close, with an error wrapping
	// ErrPeerLost. It is called from a transport goroutine.
	Lost func(peer int, err error)
	// Logger receives refused connections at Warn, rate-limited to a
	// few records a second and then one a second counting the rest, and
	// connections lost other than by a peer's Close (a protocol error, a
	// silent or vanished peer) at Error; nil means slog.Default(). A peer
	// that closes its Endpoint logs nothing.
	Logger *slog.Logger
	// Rails, if set, are this rank's extra links to its peers (see
	// "Rails" in the package doc): local addresses with their prefix
	// length, as "10.252.1.1/24", each paired with a peer's rail in the
	// same network. Empty, the default, means one connection per peer.
	Rails []string
	// RailProfiles names a profile file (rail.File, as plexus rail sample
	// writes) that predicts each rail; without it, or without a rail in
	// it, the rails are sampled briefly when they are first set up, and
	// the samples are then added to the file (created if need be), so
	// that later jobs between the same hosts and interfaces need not
	// sample again: a cache of profiles per host pair and interface.
	RailProfiles string
	// RailMin is the shortest Data frame sent over rails; zero means
	// DefaultRailMin. Shorter frames, and every other kind, keep the
	// main connection.
	RailMin int
}

// Validate checks c and fills in its defaults.
func (c *Config) Validate() error {
	if err := c.validateJob(); err != nil {
		return err
	}
	if err := c.validateFuncs(); err != nil {
		return err
	}
	if err := c.validateRails(); err != nil {
		return err
	}
	return c.validateSizes()
}

func (c *Config) validateJob() error {
	if c.Size < 1 || c.Size > math.MaxInt32 {
		return fmt.Errorf("tcp: config: Size %d out of range", c.Size)
	}
	if c.Rank < 0 || c.Rank >= c.Size {
		return fmt.Errorf("tcp: config: Rank %d out of range [0, %d)", c.Rank, c.Size)
	}
	if c.JobID == "" || len(c.JobID) > MaxJobID {
		return fmt.Errorf("tcp: config: JobID must have 1 to %d bytes, has %d", MaxJobID, len(c.JobID))
	}
	return c.validateSecret()
}

// validateSecret checks that a job of several ranks has a key, and only
// one kind of it. A single rank has no peer to authenticate.
func (c *Config) validateSecret() error {
	switch {
	case c.Secret != nil && c.Key != nil:
		return fmt.Errorf("tcp: config: both Secret and Key set")
	case c.Secret == nil && c.Key == nil && c.Size > 1:
		return fmt.Errorf("tcp: config: no Secret or Key for a job of %d ranks", c.Size)
	case c.Secret != nil && len(c.Secret) < MinSecret:
		return fmt.Errorf("tcp: config: Secret has %d bytes, need at least %d", len(c.Secret), MinSecret)
	}
	return nil
}

func (c *Config) validateFuncs() error {
	if c.Addrs == nil && c.Size > 1 {
		return fmt.Errorf("tcp: config: no Addrs address book")
	}
	if c.Deliver == nil {
		return fmt.Errorf("tcp: config: no Deliver function")
	}
	if c.Lost == nil {
		c.Lost = func(int, error) {}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	return nil
}

func (c *Config) validateSizes() error {
	if c.MaxPayload < 0 || int64(c.MaxPayload) > math.MaxUint32 || c.QueueBytes < 0 {
		return fmt.Errorf("tcp: config: MaxPayload %d or QueueBytes %d out of range", c.MaxPayload, c.QueueBytes)
	}
	if c.HandshakeTimeout < 0 || c.PreAuthTimeout < 0 || c.Heartbeat < 0 || c.PeerTimeout < 0 || c.UserTimeout < 0 {
		return fmt.Errorf("tcp: config: negative timeout")
	}
	c.MaxPayload = cmp.Or(c.MaxPayload, DefaultMaxPayload)
	c.QueueBytes = cmp.Or(c.QueueBytes, DefaultQueueBytes)
	c.HandshakeTimeout = cmp.Or(c.HandshakeTimeout, DefaultHandshakeTimeout)
	c.PreAuthTimeout = min(cmp.Or(c.PreAuthTimeout, DefaultPreAuthTimeout), c.HandshakeTimeout)
	c.PeerTimeout = cmp.Or(c.PeerTimeout, 4*c.Heartbeat)
	if c.PeerTimeout < c.Heartbeat {
		return fmt.Errorf("tcp: config: PeerTimeout %v is shorter than Heartbeat %v", c.PeerTimeout, c.Heartbeat)
	}
	return nil
}
