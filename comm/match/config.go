package match

import "fmt"

// DefaultShards is the number of shards when Config.Shards is zero: enough
// that a few cores rarely meet on one lock, few enough that a wildcard
// receive, which reads a count in each, stays cheap.
const DefaultShards = 256

// maxShards bounds the lock-everything path of wildcard operations.
const maxShards = 1 << 16

// Config describes a Table. Validate fills in its defaults.
type Config struct {
	// Shards is the number of independently locked parts of the table, a
	// power of two up to 65536; zero means DefaultShards.
	Shards int
}

// Validate fills in defaults and reports a configuration New would reject.
func (c *Config) Validate() error {
	if c.Shards == 0 {
		c.Shards = DefaultShards
	}
	if c.Shards < 0 || c.Shards > maxShards || c.Shards&(c.Shards-1) != 0 {
		return fmt.Errorf("match: Shards %d: want a power of two in [1, %d]", c.Shards, maxShards)
	}
	return nil
}
