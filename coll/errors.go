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
)

// errShortOut is the error for an output buffer that cannot hold a result.
func errShortOut(have, want int) error {
	return fmt.Errorf("%w: output buffer of %d bytes for a %d-byte result", ErrTruncated, have, want)
}
