package agree

import (
	"cmp"
	"slices"
)

// paxos is the state of the classic Paxos that chooses the view of the
// next epoch (view.Epoch+1): this replica as a voter (promised, voted)
// and as a proposer (the rest). It is reset when an epoch begins.
type paxos struct {
	promised  Ballot
	voted     Ballot
	votedView *View

	running   bool
	started   int64
	round     uint64
	ballot    Ballot
	promises  map[int]Message
	votes     map[int]bool
	proposing *View
}

// enter starts the current view's epoch: fresh leader and acceptor
// state, a fresh reconfiguration, the failure detector rearmed.
func (n *Node) enter() {
	n.lead = lead{next: n.view.Base + 1}
	n.acc = accept{max: n.view.Base}
	n.px = paxos{round: n.px.round}
	n.hint = max(n.hint, n.view.Base)
	n.fd.reset(n)
	n.own.each(func(v []byte, sent *int64) {
		*sent = n.now
		n.send(Message{Type: Forward, To: n.view.Leader, Value: v})
	})
}

func (n *Node) stepPaxos(m *Message) {
	switch m.Type {
	case Prepare, Vote:
		if n.behindOrAhead(m) || m.Epoch <= n.mute {
			return // a restarted replica stays silent in choices it may have voted in
		}
		if m.Type == Prepare {
			n.onPrepare(m)
		} else {
			n.onVote(m)
		}
	case Promise:
		n.onPromise(m)
	case Voted:
		n.onVoted(m)
	case Nack:
		n.px.round = max(n.px.round, m.Ballot.Round)
	case Decide:
		n.onDecide(m)
	}
}

// behindOrAhead answers a Prepare or Vote for an epoch other than the
// next one: with this replica's view if the sender is behind, with a
// request for the sender's view if this replica is.
func (n *Node) behindOrAhead(m *Message) bool {
	switch {
	case m.Epoch <= n.view.Epoch:
		n.send(Message{Type: Decide, To: m.From, View: n.fullView()})
	case m.Epoch > n.view.Epoch+1:
		n.send(Message{Type: ViewReq, To: m.From})
	default:
		return false
	}
	return true
}

func (n *Node) fullView() *View { v := n.view; return &v }

// startReconfig begins (or begins again, with a higher ballot) the
// choice of the next epoch's view, with a longer timeout than the
// choice before if no decision came between: see electionTimeout.
func (n *Node) startReconfig() {
	n.px.round = max(n.px.round, n.px.promised.Round) + 1
	n.px.ballot = Ballot{Round: n.px.round, ID: n.cfg.ID}
	n.px.running, n.px.started = true, n.now
	n.px.promises, n.px.votes, n.px.proposing = map[int]Message{}, map[int]bool{}, nil
	n.fd.timeout = n.electionTimeout(n.fd.level)
	n.fd.level++
	n.send(Message{Type: Prepare, To: All, Epoch: n.view.Epoch + 1, Ballot: n.px.ballot})
}

// onPrepare promises; the leader and the acceptor of the current epoch
// also seal themselves — they act no more in it — and send what they
// proposed or accepted, from which the next view is built.
func (n *Node) onPrepare(m *Message) {
	if m.Ballot.Less(n.px.promised) {
		n.send(Message{Type: Nack, To: m.From, Epoch: m.Epoch, Ballot: n.px.promised})
		return
	}
	n.px.promised = m.Ballot
	p := Message{Type: Promise, To: m.From, Epoch: m.Epoch, Ballot: m.Ballot, Voted: n.px.voted, View: n.px.votedView}
	if n.view.Leader == n.cfg.ID || n.view.Acceptor == n.cfg.ID {
		n.sealed = max(n.sealed, n.view.Epoch)
		p.Entries = n.sealEntries()
		if n.snap.Index > 0 {
			s := n.snap
			p.Snap = &s // the seal's slots up to the snapshot are in it
		}
	}
	n.send(p)
}

// sealEntries is everything this replica proposed, accepted or learned
// above the epoch's Base: as leader or acceptor, a superset of what the
// epoch's acceptor ever accepted.
func (n *Node) sealEntries() []Entry {
	var es []Entry
	n.learned.each(func(s uint64, v *[]byte) {
		if s > n.view.Base {
			es = append(es, Entry{Slot: s, Value: *v})
		}
	})
	n.lead.proposed.each(func(s uint64, p *proposal) { es = append(es, Entry{Slot: s, Value: p.value}) })
	n.acc.accepted.each(func(s uint64, v *[]byte) { es = append(es, Entry{Slot: s, Value: *v}) })
	slices.SortFunc(es, func(a, b Entry) int { return cmp.Compare(a.Slot, b.Slot) })
	return es
}

func (n *Node) onVote(m *Message) {
	if m.Ballot.Less(n.px.promised) || m.View == nil || m.View.Epoch != m.Epoch {
		n.send(Message{Type: Nack, To: m.From, Epoch: m.Epoch, Ballot: n.px.promised})
		return
	}
	n.px.promised, n.px.voted, n.px.votedView = m.Ballot, m.Ballot, m.View
	n.send(Message{Type: Voted, To: m.From, Epoch: m.Epoch, Ballot: m.Ballot})
}

func (n *Node) mine(m *Message) bool {
	return n.px.running && m.Epoch == n.view.Epoch+1 && m.Ballot == n.px.ballot
}

func (n *Node) onPromise(m *Message) {
	if !n.mine(m) || n.px.proposing != nil {
		return
	}
	n.px.promises[m.From] = *m
	if len(n.px.promises) < n.majority() {
		return
	}
	v := n.chooseView()
	if v == nil {
		return // no seal yet from the epoch's leader or acceptor
	}
	n.px.proposing = v
	n.send(Message{Type: Vote, To: All, Epoch: v.Epoch, Ballot: n.px.ballot, View: v})
}

func (n *Node) onVoted(m *Message) {
	if !n.mine(m) || n.px.proposing == nil {
		return
	}
	n.px.votes[m.From] = true
	if len(n.px.votes) >= n.majority() {
		n.send(Message{Type: Decide, To: All, Epoch: n.px.proposing.Epoch, View: n.px.proposing})
	}
}

func (n *Node) onDecide(m *Message) {
	if m.View == nil || m.View.Epoch <= n.view.Epoch {
		return
	}
	n.adopt(*m.View)
}

// adopt enters the epoch of v: the replica installs its snapshot if it
// is behind it, learns its log, and holds it compacted to its own
// snapshot.
func (n *Node) adopt(v View) {
	n.install(v.Snap)
	n.learnAll(v.Log)
	if n.snap.Index > snapIndex(v.Snap) {
		v.Log = trimLog(v.Log, n.snap.Index)
		s := n.snap
		v.Snap = &s
	}
	n.view = v
	n.enter()
}
