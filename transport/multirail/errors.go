package multirail

import "errors"

// Errors; each is wrapped with what went wrong where.
var (
	// ErrMalformed reports a chunk that does not follow the wire format,
	// or contradicts its message's earlier chunks.
	ErrMalformed = errors.New("multirail: malformed chunk")
	// ErrCorrupt reports a chunk whose bytes do not match its checksum.
	ErrCorrupt = errors.New("multirail: corrupt chunk")
	// ErrRailsDown reports that every rail has failed.
	ErrRailsDown = errors.New("multirail: every rail is down")
	// ErrClosed reports use after Close.
	ErrClosed = errors.New("multirail: closed")
	// ErrTooLarge reports a message over Config.MaxMessage.
	ErrTooLarge = errors.New("multirail: message too large")
)
