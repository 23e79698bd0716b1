package pgas

import "errors"

// Errors of the package; each is wrapped with what was wrong.
var (
	// ErrOutOfHeap reports an allocation larger than a rank's free heap.
	ErrOutOfHeap = errors.New("pgas: out of heap")
	// ErrBadSize reports a bad size: a negative count, an element larger
	// than a block, a heap or block of no bytes.
	ErrBadSize = errors.New("pgas: bad size")
	// ErrBadAddress reports an address outside a rank's heap, or a Free
	// of something not allocated.
	ErrBadAddress = errors.New("pgas: bad address")
	// ErrBound reports a heap used before Bind, or bound twice.
	ErrBound = errors.New("pgas: heap not bound to an engine")
)
