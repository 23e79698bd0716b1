package coll

import "context"

// Link is an ordered, reliable, point-to-point channel, one direction pair
// between two members: what one end sends, the other end receives, in
// order, exactly once. Each end is used by one goroutine at a time for
// sending and one for receiving.
//
// Send waits while the link is full and fails with an error, never a hang,
// when the link breaks or ctx ends. TryRecv returns at once: ok is false
// when no message is queued. Recv waits for a message. A message longer
// than buf is reported with an error wrapping ErrTruncated. A Link may
// also carry signals (Signaler), which barriers then use.
type Link interface {
	Send(ctx context.Context, p []byte) error
	TryRecv(buf []byte) (n int, ok bool, err error)
	Recv(ctx context.Context, buf []byte) (int, error)
}

// trySender is implemented by links that can attempt a send without
// waiting. The team uses it so that a sender stuck on a full link still
// notices a failure elsewhere in the team.
type trySender interface {
	TrySend(p []byte) (bool, error)
}

// transport makes a connected pair of links between members a and b (CPU
// ids): a holds the first, b the second. A team calls it once per distinct
// edge of its trees, before any member runs. Teams use rings; tests
// substitute twin links (twinlink_test.go) through Config.transport.
type transport func(a, b int) (Link, Link, error)

// end is one member's end of a link, with its try-send form and signal
// state looked up once rather than on every message.
//
// Its size is a multiple of 16 bytes (endSizeTest): ends are passed by
// value on every message, and the compiler copies a 40-byte struct with
// overlapping 16-byte moves, so that reading a field of a fresh copy
// straddles two stores and waits for them instead of being forwarded;
// the padding makes a two-member Allreduce's own cost visibly smaller
// (BenchmarkAllreduceOwnCost; docs/benchmarks.md, "Allreduce by recursive
// doubling").
type end struct {
	Link
	try trySender // nil when the link has no TrySend
	sig *signal   // nil when the link carries no signals
	// peer is the door of the member at the other end of an in-process
	// link, whom a send or signal wakes if it sleeps (door.go); nil for
	// remote links, whose transport rings the member's bell. It also
	// makes the struct 48 bytes: see above.
	peer *door
}

func newEnd(l Link) end {
	sig := newSignal(l)
	if r, ok := l.(*ringLink); ok {
		l = r.Pair // messages skip the wrapper's promoted-method hop
	}
	ts, _ := l.(trySender)
	return end{Link: l, try: ts, sig: sig}
}
