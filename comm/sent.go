package comm

import "sync/atomic"

// Completed sends. An eager Isend is complete when Isend returns: its
// request only ever reports a status (destination, tag, length) and no
// error. Allocating one per message cost a message-rate benchmark a good
// part of its garbage, so the world hands out shared, immutable completed
// requests instead, from a small cache keyed by peer, tag and length, as
// MPICH returns a built-in completed request for sends that finished at
// once. Sharing is safe because Wait and Test on a finished request only
// read it, and nothing finishes it twice.

// sentSlots is the size of the world's cache of completed sends.
const sentSlots = 64

// sentCache holds completed send requests, direct-mapped by peer, tag and
// length; any goroutine may use it.
type sentCache [sentSlots]atomic.Pointer[Request]

// sentRequest returns a finished send request to peer with tag and n
// bytes: the cached one if it matches, else a new one that replaces it.
// It does not hold on to the caller's buffer.
func (w *World) sentRequest(peer, tag, n int) *Request {
	st := Status{Source: peer, Tag: tag, Len: n}
	slot := &w.sent[uint(peer*257+tag*31+n)%sentSlots]
	if r := slot.Load(); r != nil && r.status == st {
		return r
	}
	r := &Request{w: w, send: true, peer: peer, tag: tag, shared: true}
	r.finish(st, nil)
	slot.Store(r)
	return r
}
