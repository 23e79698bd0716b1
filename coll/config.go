package coll

import (
	"fmt"
	"slices"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/internal/wait"
	"github.com/plexus-hpc/plexus/tree"
)

// Defaults filled in by Config.Validate.
const (
	// DefaultSlots is the capacity of each direction of a link.
	DefaultSlots = 64
	// DefaultMaxMessage is the largest payload of a member made by
	// NewMember, whose links (not rings) set no limit of their own.
	DefaultMaxMessage = 1024
)

// Config describes a team. Validate fills in its defaults.
type Config struct {
	// Broadcast is the broadcast tree; its members are the team, named by
	// CPU.
	Broadcast *tree.Tree
	// Reduce is the reduction tree; nil means Broadcast. It must have the
	// same members and root.
	Reduce *tree.Tree
	// Pin makes Run pin each member's goroutine to the CPU the member is
	// named after. Every member must then be a CPU the process may use.
	Pin bool
	// Slots is the capacity of each direction of a link, a power of two;
	// zero means DefaultSlots.
	Slots int
	// MaxMessage is the largest payload a member sends; zero means the
	// most that a link of Slots slots carries (NewMember:
	// DefaultMaxMessage). Every member keeps two buffers of this size.
	MaxMessage int
	// Allreduce says which algorithm Allreduce uses for each length; its
	// zero value runs every allreduce on the trees. tree.PlanAllreduce
	// makes the plan the machine model favours, tree.FixedAllreduce one
	// that forces an algorithm. Every member must have the same plan.
	Allreduce tree.AllreducePlan

	// transport makes the links; nil means rings of Slots slots. Tests
	// set it to run the same team over twin links.
	transport transport
	// policy replaces the waiting policy policyFor picks; tests shorten
	// its budgets.
	policy *wait.Policy
}

// waitPolicy returns the members' waiting policy.
func (c *Config) waitPolicy() *wait.Policy {
	if c.policy != nil {
		return c.policy
	}
	return policyFor(len(c.Broadcast.Children))
}

// Validate checks c and fills in its defaults.
func (c *Config) Validate() error {
	if c.Broadcast == nil {
		return fmt.Errorf("coll: config has no broadcast tree")
	}
	if err := c.Broadcast.Validate(); err != nil {
		return fmt.Errorf("coll: broadcast tree: %w", err)
	}
	if err := c.validateReduce(); err != nil {
		return err
	}
	if err := c.validateSizes(); err != nil {
		return err
	}
	if err := c.validateAllreduce(); err != nil {
		return err
	}
	if c.Pin {
		return checkAllowed(c.Broadcast.Members())
	}
	return nil
}

func (c *Config) validateReduce() error {
	if c.Reduce == nil {
		c.Reduce = c.Broadcast
		return nil
	}
	if err := c.Reduce.Validate(); err != nil {
		return fmt.Errorf("coll: reduction tree: %w", err)
	}
	if c.Reduce.Root != c.Broadcast.Root {
		return fmt.Errorf("coll: reduction tree root %d, broadcast tree root %d: they must agree",
			c.Reduce.Root, c.Broadcast.Root)
	}
	if !slices.Equal(c.Reduce.Members(), c.Broadcast.Members()) {
		return fmt.Errorf("coll: reduction tree members %v differ from broadcast tree members %v",
			c.Reduce.Members(), c.Broadcast.Members())
	}
	return nil
}

func (c *Config) validateSizes() error {
	if c.Slots < 0 || c.MaxMessage < 0 {
		return fmt.Errorf("coll: config has negative Slots (%d) or MaxMessage (%d)", c.Slots, c.MaxMessage)
	}
	if c.Slots == 0 {
		c.Slots = DefaultSlots
	}
	if c.transport != nil {
		if c.MaxMessage == 0 {
			c.MaxMessage = DefaultMaxMessage
		}
		return nil
	}
	return c.defaultRings()
}

// checkAllowed reports the first member the process may not pin to.
func checkAllowed(cpus []int) error {
	ok, err := affinity.Allowed()
	if err != nil {
		return fmt.Errorf("coll: cannot pin members: %w", err)
	}
	for _, c := range cpus {
		if !slices.Contains(ok, c) {
			return fmt.Errorf("coll: cannot pin member to CPU %d, this process may use only %v: %w",
				c, ok, affinity.ErrNotAllowed)
		}
	}
	return nil
}
