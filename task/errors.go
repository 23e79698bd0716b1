package task

import "errors"

// Errors of the pool; each is wrapped with what was wrong.
var (
	// ErrRegistry reports a bad registration: an empty or duplicate
	// name, a nil function, or a registration after Bind.
	ErrRegistry = errors.New("task: bad registration")
	// ErrTooLarge reports task args longer than Config.MaxArgs.
	ErrTooLarge = errors.New("task: args too large")
	// ErrBadFunc reports a Func or Loop that this pool did not register.
	ErrBadFunc = errors.New("task: unknown function")
	// ErrBadRange reports a loop range that is negative or overflows.
	ErrBadRange = errors.New("task: bad loop range")
	// ErrDone reports a spawn on a Group after its Wait was called.
	ErrDone = errors.New("task: group already waited on")
	// ErrTask reports that some task of a group returned an error; the
	// wrapping error names the rank and carries the task's error text.
	ErrTask = errors.New("task: a task failed")
	// ErrAbandoned reports a group that cannot finish because some
	// rank's Wait gave up on it (its ctx ended, or its pool closed).
	ErrAbandoned = errors.New("task: a rank stopped waiting on the group")
	// ErrClosed reports an operation on a closed pool, or a Wait that
	// was pending when it closed.
	ErrClosed = errors.New("task: pool closed")
	// ErrUnbound reports a pool used before Bind.
	ErrUnbound = errors.New("task: pool not bound to an am engine")
	// ErrMalformed reports a task message that does not decode.
	ErrMalformed = errors.New("task: malformed message")
)
