package group

import (
	"errors"
	"fmt"
)

// Errors returned by the package; recognise them with errors.Is.
var (
	// ErrConfig reports a configuration that cannot run.
	ErrConfig = errors.New("group: bad config")
	// ErrStopped reports a call on a replica whose Run has returned.
	ErrStopped = errors.New("group: replica stopped")
)

func errMode(s string) error {
	return fmt.Errorf("%w: broadcast mode %q, want tree or sequential", ErrConfig, s)
}
