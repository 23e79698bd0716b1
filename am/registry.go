package am

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Handler is the code an active message runs at its destination rank.
// from is the sending rank; args are the bytes the sender passed, valid
// only until the handler returns (copy what it keeps). A Call's caller receives reply, or err's text as
// a *RemoteError; a Post's reply is dropped and its err logged. ctx ends
// when the engine closes.
//
// Handlers from one source run one at a time, in the order that source
// sent them, while handlers for other sources may run at once. A handler
// may Post, and may Call (replies do not queue behind handlers), but
// handlers that Call one another around a cycle of ranks wait for ever:
// each holds up the later messages from its source.
type Handler func(ctx context.Context, from int, args []byte) (reply []byte, err error)

// ID names a registered handler in Call and Post. IDs are given out in
// registration order from 0, so ranks that register the same names in the
// same order have the same IDs.
type ID uint32

// Registry is the table of handlers that an engine runs. Every rank
// registers the same names in the same order before New; New checks that
// they did. Its zero value is an empty registry ready to use.
//
// Register may be called from any goroutine until the registry is given
// to New, and not after.
type Registry struct {
	mu       sync.Mutex
	names    []string
	handlers []Handler
	index    map[string]ID
	frozen   bool
}

// ErrRegistry reports a bad registration: an empty or duplicate name, a
// nil handler, or a registry already in use by an engine.
var ErrRegistry = errors.New("am: bad registration")

// Register adds h under name and returns its ID.
func (r *Registry) Register(name string, h Handler) (ID, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.frozen:
		return 0, fmt.Errorf("%w: %q registered after the engine started", ErrRegistry, name)
	case name == "":
		return 0, fmt.Errorf("%w: empty name", ErrRegistry)
	case h == nil:
		return 0, fmt.Errorf("%w: nil handler for %q", ErrRegistry, name)
	}
	if _, dup := r.index[name]; dup {
		return 0, fmt.Errorf("%w: %q registered twice", ErrRegistry, name)
	}
	if r.index == nil {
		r.index = make(map[string]ID)
	}
	id := ID(len(r.names))
	r.index[name] = id
	r.names = append(r.names, name)
	r.handlers = append(r.handlers, h)
	return id, nil
}

// Lookup returns the ID registered under name.
func (r *Registry) Lookup(name string) (ID, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.index[name]
	return id, ok
}

// freeze stops registration and returns the table.
func (r *Registry) freeze() ([]string, []Handler) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frozen = true
	return r.names, r.handlers
}

// firstDifference describes where two tables of names differ, or returns
// "" when they are equal.
func firstDifference(mine, theirs []string, rank int) string {
	for i := range min(len(mine), len(theirs)) {
		if mine[i] != theirs[i] {
			return fmt.Sprintf("handler %d is %q at rank 0 but %q at rank %d", i, mine[i], theirs[i], rank)
		}
	}
	switch {
	case len(mine) > len(theirs):
		return fmt.Sprintf("rank %d lacks handler %d %q (it registered %d, rank 0 %d)", rank, len(theirs), mine[len(theirs)], len(theirs), len(mine))
	case len(theirs) > len(mine):
		return fmt.Sprintf("rank %d has extra handler %d %q (it registered %d, rank 0 %d)", rank, len(mine), theirs[len(mine)], len(theirs), len(mine))
	}
	return ""
}
