package measure

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/ring"
	"github.com/plexus-hpc/plexus/topo"
)

// Defaults for the zero fields of a Config.
const (
	// DefaultReps is the timed repetitions per ordered pair: after dropping
	// the largest 10%, 180 samples give a standard error of the mean well
	// under the SD / 10.
	DefaultReps = 200
	// QuickReps replaces DefaultReps with Config.Quick.
	QuickReps = 20
	// DefaultBatch is Smelt's batch of 8 messages per timed send (§3.2).
	DefaultBatch = 8
	// DefaultSlots is the ring capacity. A ring the receiver has drained
	// has room for at least Slots/2+1 messages (it publishes its position
	// every Slots/2), so Slots ≥ 2×Batch means no timed send ever finds
	// the ring full.
	DefaultSlots = 64
	// DropFrac is the share of largest samples Summarize drops, as Smelt's
	// evaluate-pairwise.py does.
	DropFrac = 0.10
)

// Errors returned by the package; wrap-aware callers use errors.Is.
var (
	ErrConfig     = errors.New("measure: invalid config")
	ErrTooFewCPUs = errors.New("measure: need at least 2 CPUs")
)

// Config says what Pairwise measures and how often. Its zero value measures
// every allowed CPU with the defaults above.
type Config struct {
	// CPUs are the OS CPU numbers to measure, all in the process's
	// affinity mask; nil means every allowed CPU. Result matrices are
	// indexed by position in the sorted list.
	CPUs []int
	// Reps is the number of timed repetitions per ordered pair; 0 means
	// DefaultReps, or QuickReps with Quick.
	Reps int
	// Batch is the number of messages per timed batch; 0 means
	// DefaultBatch.
	Batch int
	// Warmup is the number of untimed repetitions before the timed ones
	// of each visit of a pair (see doc.go), which fault in the ring and
	// bring both threads up to speed; 0 means Reps/10, at least 1.
	Warmup int
	// Slots is the ring capacity in messages, a power of two of at least
	// 2×Batch; 0 means DefaultSlots or, for big batches, the least power
	// of two that is at least 2×Batch.
	Slots int
	// Quick lowers the default Reps to QuickReps, for a rough model in a
	// fraction of the time.
	Quick bool
	// SkipLoaded skips the loaded phase, leaving Result.Latency nil: a
	// model without latency under load, as measured before it existed.
	SkipLoaded bool
}

// Validate reports a config that Pairwise cannot run: negative counts,
// Slots not a power of two or below 2×Batch, or a CPU list with negative or repeated numbers
// or fewer than 2 CPUs. Zero fields are valid (they mean the default).
func (c Config) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"Reps", c.Reps}, {"Batch", c.Batch}, {"Warmup", c.Warmup}, {"Slots", c.Slots}} {
		if f.v < 0 {
			return fmt.Errorf("%w: %s = %d is negative", ErrConfig, f.name, f.v)
		}
	}
	d := c.withDefaults()
	if d.Slots > ring.MaxSlots || bits.OnesCount(uint(d.Slots)) != 1 {
		return fmt.Errorf("%w: Slots %d is not a power of two up to %d", ErrConfig, d.Slots, ring.MaxSlots)
	}
	if d.Slots < 2*d.Batch {
		return fmt.Errorf("%w: Slots %d is less than twice the batch of %d", ErrConfig, d.Slots, d.Batch)
	}
	return checkCPUList(c.CPUs)
}

func checkCPUList(cpus []int) error {
	if cpus == nil {
		return nil
	}
	if err := topo.CheckCPUs(len(cpus), true); err != nil {
		return fmt.Errorf("measure: %w", err)
	}
	for i, id := range cpus {
		if id < 0 {
			return fmt.Errorf("%w: CPU %d is negative", ErrConfig, id)
		}
		if slices.Contains(cpus[:i], id) {
			return fmt.Errorf("%w: CPU %d listed twice", ErrConfig, id)
		}
	}
	if len(cpus) < 2 {
		return fmt.Errorf("%w, got %d (%v)", ErrTooFewCPUs, len(cpus), cpus)
	}
	return nil
}

// withDefaults returns c with its zero fields filled in.
func (c Config) withDefaults() Config {
	if c.Reps == 0 {
		c.Reps = DefaultReps
		if c.Quick {
			c.Reps = QuickReps
		}
	}
	if c.Batch == 0 {
		c.Batch = DefaultBatch
	}
	if c.Warmup == 0 {
		c.Warmup = max(1, c.Reps/10)
	}
	if c.Slots == 0 {
		c.Slots = DefaultSlots
		for c.Slots < 2*c.Batch && c.Slots < ring.MaxSlots {
			c.Slots *= 2
		}
	}
	return c
}

// resolveCPUs returns the sorted CPUs to measure: want, or all of allowed
// when want is nil. Every wanted CPU must be allowed; the error names those
// that are not and wraps affinity.ErrNotAllowed.
func resolveCPUs(want, allowed []int) ([]int, error) {
	if want == nil {
		want = allowed
	}
	var bad []int
	for _, id := range want {
		if !slices.Contains(allowed, id) {
			bad = append(bad, id)
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("measure: CPUs %v are outside the process's affinity mask %v: %w",
			bad, allowed, affinity.ErrNotAllowed)
	}
	cpus := slices.Sorted(slices.Values(want))
	if err := topo.CheckCPUs(len(cpus), true); err != nil {
		return nil, fmt.Errorf("measure: %w", err)
	}
	if len(cpus) < 2 {
		return nil, fmt.Errorf("%w, have %d (%v); the process may run on %v",
			ErrTooFewCPUs, len(cpus), cpus, allowed)
	}
	return cpus, nil
}
