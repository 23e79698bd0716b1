package multirail

// The chunks sent and not yet acknowledged, kept per rail in the order
// they were queued on it (railConn.pend). The peer acknowledges every
// chunk it reads from a rail on that same rail, in the order it read
// them, and a rail's chunks leave in the order they were queued (every
// queueing is under Link.mu, and a rail's queue is first in, first out,
// whoever writes it: railconn.go). So the next acknowledgement on a rail
// is for the oldest chunk pending there, and matching it is a comparison
// with the list's head: no map of every chunk in flight to insert into
// and delete from for every message (about a tenth of the Link's user
// time per small message in a ping-pong; docs/benchmarks.md, "Rails: the
// Link's CPU per small message").
//
// Invariants, under Link.mu:
//
//	P1  a chunk not yet acknowledged is in exactly one list: its rail's
//	    (p.rail), in the order its copy was queued on that rail.
//	P2  a rail that fails hands its whole list on (Link.railFailed): each
//	    chunk is queued again on a rail up, at the end of that one's list.
//	P3  an acknowledgement read from a rail that is down is ignored: its
//	    chunk was sent again (P2), and the copy's acknowledgement ends it.
//
// By P1–P3, on a rail up the acknowledgements that come are those of its
// list's chunks, in order. One that does not match the head (a peer that
// breaks the protocol) is ignored, as an unknown one always was; the head
// then goes unacknowledged until its deadline takes the rail down.

// pendList is one rail's chunks pending, oldest first: q[head:]. The
// head moves rather than the slice, so that the array is reused.
type pendList struct {
	q    []*pendChunk
	head int
}

// push adds p at the end.
func (pl *pendList) push(p *pendChunk) { pl.q = append(pl.q, p) }

// front is the oldest chunk, nil if none.
func (pl *pendList) front() *pendChunk {
	if pl.head == len(pl.q) {
		return nil
	}
	return pl.q[pl.head]
}

// pop removes the oldest chunk; the list must not be empty.
func (pl *pendList) pop() {
	pl.q[pl.head] = nil
	switch pl.head++; {
	case pl.head == len(pl.q):
		pl.q, pl.head = pl.q[:0], 0
	case pl.head >= 64 && 2*pl.head >= len(pl.q):
		// Never empty (a stream): move the rest down, so that the array
		// does not grow without end (amortised O(1) a pop).
		n := copy(pl.q, pl.q[pl.head:])
		clear(pl.q[n:])
		pl.q, pl.head = pl.q[:n], 0
	}
}

// all is the chunks, oldest first, valid until the next change.
func (pl *pendList) all() []*pendChunk { return pl.q[pl.head:] }

// takeAll removes and returns every chunk, oldest first.
func (pl *pendList) takeAll() []*pendChunk {
	ps := pl.q[pl.head:]
	*pl = pendList{}
	return ps
}

// matches reports whether acknowledgement h is p's.
func (p *pendChunk) matches(h header) bool {
	return p.h.msg == h.msg && p.h.off == h.off && p.h.len == h.len
}
