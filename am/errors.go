package am

import (
	"errors"
	"fmt"
)

// Errors of the engine; each is wrapped with what was wrong.
var (
	// ErrBadHandler reports an ID that no handler was registered under.
	ErrBadHandler = errors.New("am: unknown handler")
	// ErrTooLarge reports args or a reply longer than Config.MaxArgs.
	ErrTooLarge = errors.New("am: message too large")
	// ErrClosed reports an operation on a closed engine, or a Call that
	// was waiting when the engine closed.
	ErrClosed = errors.New("am: engine closed")
	// ErrMismatch reports ranks that registered different handler tables.
	ErrMismatch = errors.New("am: handler tables differ between ranks")
)

// RemoteError is a handler's error, as its Call's caller receives it.
type RemoteError struct {
	Rank    int    // where the handler ran
	Handler string // its registered name
	Msg     string // its error's text
}

// Error returns the handler, its rank and its error's text.
func (e *RemoteError) Error() string {
	return fmt.Sprintf("am: handler %q at rank %d: %s", e.Handler, e.Rank, e.Msg)
}
