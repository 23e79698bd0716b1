package bench

import (
	"errors"
	"fmt"
)

// ErrOrder reports a message received out of order: a transport bug.
var ErrOrder = errors.New("bench: message out of order")

func checkSeq(got uint64, want int) error {
	if got != uint64(want) {
		return fmt.Errorf("%w: got sequence %d, want %d", ErrOrder, got, want)
	}
	return nil
}
