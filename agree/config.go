package agree

import "fmt"

// Config says who a replica is and how it counts time. Ticks are the
// only clock: the caller calls Node.Tick at a steady rate of its choice,
// and every timeout below is a number of ticks.
type Config struct {
	// ID is this replica's id, 0 <= ID < Replicas.
	ID int
	// Replicas is the size of the group; ids are 0..Replicas-1. Quorums
	// of the reconfiguration protocol are majorities of it.
	Replicas int
	// HeartbeatTicks is how often the leader and the acceptor tell every
	// replica that they are alive (default 2).
	HeartbeatTicks int
	// ElectionTicks is how long a replica waits without hearing from the
	// leader or the acceptor before it proposes a new configuration; each
	// replica draws its own timeout in [ElectionTicks, 2*ElectionTicks),
	// so that replicas rarely compete (default 10*HeartbeatTicks). A
	// replica whose proposal of a configuration has not been chosen by
	// then proposes again and waits twice as long, and so on up to 16
	// times as long until it sees the group decide a value again: a
	// group whose messages are slow next to its ticks (a loaded machine)
	// still changes its configuration, later.
	ElectionTicks int
	// RetryTicks is how long a proposal, a forwarded request or a request
	// for missing entries waits for an answer before it is sent again
	// (default 2*HeartbeatTicks).
	RetryTicks int
	// CatchupBatch bounds the entries in one reply to a replica that
	// missed some (default 256).
	CatchupBatch int
	// Seed seeds the replica's draws of election timeouts; runs with the
	// same seeds and the same inputs are identical.
	Seed uint64
	// Restarted says that the replica ran before and lost its state (a
	// restart with empty memory). It then asks the others what it
	// missed, installs their snapshot and log, and takes no role and no
	// vote in any epoch it may have acted in before (see
	// docs/design/agree.md); it needs Replicas-Replicas/2 other replicas
	// up to recover, so a group of one cannot.
	Restarted bool
}

// withDefaults returns c with zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.HeartbeatTicks == 0 {
		c.HeartbeatTicks = 2
	}
	if c.ElectionTicks == 0 {
		c.ElectionTicks = 10 * c.HeartbeatTicks
	}
	if c.RetryTicks == 0 {
		c.RetryTicks = 2 * c.HeartbeatTicks
	}
	if c.CatchupBatch == 0 {
		c.CatchupBatch = 256
	}
	return c
}

// Validate reports whether c, with its defaults filled in, can run.
func (c Config) Validate() error {
	c = c.withDefaults()
	if c.Replicas < 1 {
		return fmt.Errorf("%w: %d replicas, want at least 1", ErrConfig, c.Replicas)
	}
	if c.ID < 0 || c.ID >= c.Replicas {
		return fmt.Errorf("%w: replica id %d outside 0..%d", ErrConfig, c.ID, c.Replicas-1)
	}
	if c.Restarted && c.Replicas < 2 {
		return fmt.Errorf("%w: replica %d restarted in a group of %d: no other replica to recover from", ErrConfig, c.ID, c.Replicas)
	}
	if c.HeartbeatTicks < 1 || c.ElectionTicks <= c.HeartbeatTicks || c.RetryTicks < 1 || c.CatchupBatch < 1 {
		return fmt.Errorf("%w: heartbeat %d, election %d, retry %d ticks, catch-up batch %d: want heartbeat >= 1, election > heartbeat, retry >= 1, batch >= 1",
			ErrConfig, c.HeartbeatTicks, c.ElectionTicks, c.RetryTicks, c.CatchupBatch)
	}
	return nil
}
