package task

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
)

// Defaults for Config.
const (
	// DefaultMaxArgs bounds a task's args: tasks are small (Grappa's
	// were 32 bytes), and many of them must fit in one steal.
	DefaultMaxArgs = 1 << 10
	// DefaultStealBytes bounds the tasks one steal carries; it must fit
	// in an am reply (am.Config.MaxArgs, 16 KiB by default).
	DefaultStealBytes = 8 << 10
)

// DefaultWorkers is the goroutines that run tasks on a rank when
// Config.Workers is 0: a few per processor, so that tasks blocked on
// remote operations leave others running, as Grappa multiplexes many
// workers per core.
func DefaultWorkers() int { return max(8, 4*runtime.GOMAXPROCS(0)) }

// Config tunes a pool. Zero fields mean the defaults; NoSteal false
// means work stealing is on.
type Config struct {
	// Workers is the goroutines running this rank's tasks: the bound on
	// tasks running at once here. A task waiting on a remote operation
	// (a pgas delegate, an am Call) holds its worker, so loops of such
	// tasks want many more workers than processors.
	Workers int
	// Grain is the iterations a ParallelFor task runs one after another
	// instead of splitting further (Grappa's parallel loop threshold).
	// 0 picks about eight pieces per worker of the world.
	Grain int64
	// NoSteal turns work stealing between ranks off.
	NoSteal bool
	// MaxArgs is the longest args of a task; longer ones fail with
	// ErrTooLarge.
	MaxArgs int
	// StealBytes bounds the wire size of the tasks one steal takes; at
	// most am.Config.MaxArgs. It must exceed MaxArgs by a task header.
	StealBytes int
	// Logger receives what has no caller to return to (a malformed
	// message). Nil means slog.Default().
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Workers == 0 {
		c.Workers = DefaultWorkers()
	}
	if c.MaxArgs == 0 {
		c.MaxArgs = DefaultMaxArgs
	}
	if c.StealBytes == 0 {
		c.StealBytes = DefaultStealBytes
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
	if c.Workers < 1 || c.Workers > 1<<16 {
		errs = append(errs, fmt.Errorf("task: Workers %d outside [1, 65536]", c.Workers))
	}
	if c.Grain < 0 {
		errs = append(errs, fmt.Errorf("task: negative Grain %d", c.Grain))
	}
	if c.MaxArgs < 0 {
		errs = append(errs, fmt.Errorf("task: negative MaxArgs %d", c.MaxArgs))
	}
	if c.StealBytes < c.MaxArgs+itemHeader+4 || c.StealBytes > 1<<24 {
		errs = append(errs, fmt.Errorf("task: StealBytes %d outside [MaxArgs+%d = %d, 16 MiB]",
			c.StealBytes, itemHeader+4, c.MaxArgs+itemHeader+4))
	}
	return errors.Join(errs...)
}
