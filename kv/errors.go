package kv

import "errors"

// Errors returned by the package; recognise them with errors.Is.
var (
	// ErrUnavailable reports that no replica answered in time: fewer than
	// a majority are up (or the leader and acceptor were lost together),
	// so no Set can be ordered. Nothing was answered wrongly.
	ErrUnavailable = errors.New("kv: no replica answered")
	// ErrBadMessage reports bytes that are not a request or response.
	ErrBadMessage = errors.New("kv: bad message")
	// ErrConfig reports a configuration that cannot run.
	ErrConfig = errors.New("kv: bad config")
)
