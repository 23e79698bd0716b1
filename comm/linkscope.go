package comm

// A member of a collective waits on a few links, and on a job that spans
// hosts their peers may all be on its own host: a poll of every peer then
// also reads every TCP socket, a system call per remote peer, for frames
// the wait does not need, a cost that grows with the job. So a wait may
// name the transports of its links (Link.ProgressScope) and poll only
// those (Link.ProgressIn). (On 2 × 2 ranks the time per collective did
// not change: docs/benchmarks.md, "Between namespace hosts on a quiet
// machine C: collectives, scoped waits, and rails".)
// Every fullPollEvery-th such poll still polls every transport, so that
// a world whose frames arrive only in polls (a serialized one) never
// leaves the other transport unread for long.

// Progress scopes: bit sets of the transports a poll moves.
const (
	// ScopeLocal is the transport of the ranks on this host.
	ScopeLocal uint = 1 << iota
	// ScopeRemote is the transport of the ranks on other hosts.
	ScopeRemote
	// ScopeAll is every transport.
	ScopeAll = ScopeLocal | ScopeRemote
)

// fullPollEvery is how often a scoped poll polls every transport anyway.
const fullPollEvery = 64

// scopePoller is a poller over several transports (a mux).
type scopePoller interface {
	// ScopeOf returns the scope of the transport that reaches peer,
	// ScopeAll while that is not known.
	ScopeOf(peer int) uint
	// PollScope polls, from every peer, the transports of scope, with
	// PollUntil's early return where one has it, and reports whether it
	// delivered anything.
	PollScope(scope uint, done interface{ Done() bool }) bool
}

// ProgressScope returns the transports that reach the link's peer, as
// bits of ScopeAll: a wait on several links polls the union of theirs
// with ProgressIn. A world with one transport says ScopeAll.
func (l *Link) ProgressScope() uint {
	if s := l.w.scoped; s != nil {
		return s.ScopeOf(l.peer)
	}
	return ScopeAll
}

// ProgressIn is Progress over the transports of scope alone (see
// ProgressScope), every fullPollEvery-th call over all of them. It is
// safe for concurrent use.
func (l *Link) ProgressIn(scope uint) (delivered, ok bool) {
	s := l.w.scoped
	if s == nil || scope&ScopeAll == ScopeAll {
		return l.Progress()
	}
	if l.w.scopedPolls.Add(1)%fullPollEvery == 0 {
		return l.Progress()
	}
	if l.w.poll == nil || !l.w.takePoller() {
		return false, false
	}
	var done interface{ Done() bool }
	if !l.w.serial {
		done = firstFrame{} // see Progress
	}
	delivered = s.PollScope(scope, done)
	l.w.afterPoll(delivered)
	return delivered, true
}
