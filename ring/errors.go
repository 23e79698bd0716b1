package ring

import "errors"

var (
	// ErrTooLarge reports a message longer than MaxMessage.
	ErrTooLarge = errors.New("ring: message larger than the ring's capacity")
	// ErrTruncated reports a message longer than the receive buffer; the
	// message was consumed, its prefix copied and the rest dropped.
	ErrTruncated = errors.New("ring: message truncated: receive buffer too small")
	// ErrCorrupt reports a control word no correct sender writes: a length
	// beyond capacity, a sequence number from neither this lap nor the last,
	// or a continuation slot where a message must start.
	ErrCorrupt = errors.New("ring: corrupt control word")
	// ErrBadRegion reports a region that is too small, misaligned, or not
	// initialised by New with this layout version.
	ErrBadRegion = errors.New("ring: bad region")
)
