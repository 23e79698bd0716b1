package affinity

import "errors"

var (
	// ErrNotAllowed reports a CPU the process may not run on: negative,
	// beyond the kernel's CPU set size, or outside the process's mask.
	ErrNotAllowed = errors.New("affinity: CPU not allowed")
	// ErrUnsupported reports that this platform cannot pin threads.
	ErrUnsupported = errors.New("affinity: pinning not supported on this platform")
)

// noop is the unpin returned with an error, so callers may always defer it.
func noop() {}
