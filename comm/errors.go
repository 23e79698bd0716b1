package comm

import "errors"

// ErrTruncated reports that a message was longer than the receive buffer.
// The buffer holds the message's first bytes and Status.Len its full
// length; the world goes on.
var ErrTruncated = errors.New("comm: message truncated")

// ErrPeerLost reports that the rank at the other end of an operation is
// gone: its process died, its connection broke, or it could not be
// reached at all (a TCP dial its port refused).
var ErrPeerLost = errors.New("comm: peer lost")

// ErrClosed reports an operation on a closed world.
var ErrClosed = errors.New("comm: world closed")

// ErrAborted reports that the sender of a rendezvous message gave it up
// (its context ended) after the receive had matched it.
var ErrAborted = errors.New("comm: sender abandoned the message")

// ErrBadRank reports a peer outside [0, Size) (AnySource is allowed where
// receives take it).
var ErrBadRank = errors.New("comm: rank out of range")

// ErrBadTag reports a negative tag other than AnyTag, or AnyTag on a send.
var ErrBadTag = errors.New("comm: bad tag")
