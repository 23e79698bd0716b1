package coll

import (
	"errors"
	"fmt"
)

// Errors returned by the package; recognise them with errors.Is. Context
// errors are returned unchanged, never wrapped.
var (
	// ErrClosed reports a team that was closed (Team.Close), or that an
	// earlier error of one of its members made unusable; the error also
	// wraps that cause. It is about teams: package comm/collective, which
	// runs members across processes, reports its communicator's own
	// ErrClosed instead, and comm.ErrClosed for a closed world.
	ErrClosed = errors.New("coll: team closed")
	// ErrTruncated reports a message longer than the buffer given for it.
	ErrTruncated = errors.New("coll: message truncated")
	// ErrTooLarge reports a payload longer than the team's MaxMessage.
	ErrTooLarge = errors.New("coll: message too large")
	// ErrMismatch reports members that disagree about an operation, such as
	// reduction inputs of different lengths.
	ErrMismatch = errors.New("coll: members disagree")
	// ErrArgument reports an argument no call can take, such as a nil
	// reduction operation or a negative length.
	ErrArgument = errors.New("coll: bad argument")
)

// errNilOp is the error for a reduction of a non-empty input without an
// operation: checked up front, since the operation runs on the member's
// goroutine, where a nil call would crash the process.
var errNilOp = fmt.Errorf("%w: nil reduction operation", ErrArgument)

// errShortOut is the error for an output buffer that cannot hold a result.
func errShortOut(have, want int) error {
	return fmt.Errorf("%w: output buffer of %d bytes for a %d-byte result", ErrTruncated, have, want)
}
