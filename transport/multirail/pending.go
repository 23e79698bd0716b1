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

// pendList is one rail's chunks pending, oldest first.
type pendList = fifo[*pendChunk]

// matches reports whether acknowledgement h is p's.
func (p *pendChunk) matches(h header) bool {
	return p.h.msg == h.msg && p.h.off == h.off && p.h.len == h.len
}
