package agree

import "slices"

// chooseView returns the view to propose once a majority promised: the
// view voted for under the highest ballot if any promise carries one
// (Paxos's rule), else a new view built from the seals of the current
// epoch's leader or acceptor — or nil while neither has promised.
func (n *Node) chooseView() *View {
	var best *Message
	for _, p := range n.px.promises {
		if p.View != nil && (best == nil || best.Voted.Less(p.Voted)) {
			best = &p
		}
	}
	if best != nil {
		return best.View
	}
	_, fromLeader := n.px.promises[n.view.Leader]
	_, fromAcceptor := n.px.promises[n.view.Acceptor]
	if !fromLeader && !fromAcceptor {
		return nil
	}
	snap, log := n.mergedLog()
	leader, acceptor := n.roles()
	base := snapIndex(snap) + uint64(len(log))
	return &View{Epoch: n.view.Epoch + 1, Leader: leader, Acceptor: acceptor, Base: base, Snap: snap, Log: log}
}

// mergedLog is the latest snapshot among this replica's, its view's and
// the seals', then the current view's log, the entries learned here and
// the sealed entries of the epoch's leader and acceptor after it, with
// no-ops in the slots none of them has: no value can ever be decided
// there. A slot a sealer forgot by compacting is in its seal's snapshot,
// so no no-op lands in a slot that was decided.
func (n *Node) mergedLog() (*Snapshot, []Entry) {
	snap := n.bestSnap()
	lo := snapIndex(snap)
	vals := map[uint64][]byte{}
	put := func(s uint64, v []byte) {
		if _, ok := vals[s]; !ok && s > lo {
			vals[s] = v
		}
	}
	for _, e := range n.view.Log {
		put(e.Slot, e.Value)
	}
	n.learned.each(func(s uint64, v *[]byte) { put(s, *v) })
	for _, id := range n.roleIDs() {
		if p, ok := n.px.promises[id]; ok {
			for _, e := range p.Entries {
				put(e.Slot, e.Value)
			}
		}
	}
	top := lo
	for s := range vals {
		top = max(top, s)
	}
	log := make([]Entry, top-lo)
	for i := range log {
		s := lo + uint64(i) + 1
		log[i] = Entry{Slot: s, Value: vals[s]}
	}
	return snap, log
}

// roleIDs are the current epoch's leader and acceptor.
func (n *Node) roleIDs() []int { return []int{n.view.Leader, n.view.Acceptor} }

// bestSnap is the snapshot of the highest index among this replica's,
// its view's and the seals' (nil when none).
func (n *Node) bestSnap() *Snapshot {
	best := n.view.Snap
	if n.snap.Index > snapIndex(best) {
		s := n.snap
		best = &s
	}
	for _, id := range n.roleIDs() {
		if p, ok := n.px.promises[id]; ok && snapIndex(p.Snap) > snapIndex(best) {
			best = p.Snap
		}
	}
	return best
}

// roles picks the next epoch's leader and acceptor among the replicas
// that promised (they are alive): the current ones where they did, this
// replica as leader otherwise, and as acceptor the first promiser after
// the current acceptor that is not the leader.
func (n *Node) roles() (leader, acceptor int) {
	leader = n.cfg.ID
	if _, ok := n.px.promises[n.view.Leader]; ok {
		leader = n.view.Leader
	}
	ids := make([]int, 0, len(n.px.promises))
	for id := range n.px.promises {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	r := n.cfg.Replicas
	for k := range r {
		id := (n.view.Acceptor + k) % r
		if id != leader && slices.Contains(ids, id) {
			return leader, id
		}
	}
	return leader, leader
}
