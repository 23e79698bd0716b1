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
	log := n.mergedLog()
	leader, acceptor := n.roles()
	return &View{Epoch: n.view.Epoch + 1, Leader: leader, Acceptor: acceptor, Base: uint64(len(log)), Log: log}
}

// mergedLog is the current view's log, the entries learned here and the
// sealed entries of the epoch's leader and acceptor, with no-ops in the
// slots none of them has: no value can ever be decided there.
func (n *Node) mergedLog() []Entry {
	vals := map[uint64][]byte{}
	put := func(s uint64, v []byte) {
		if _, ok := vals[s]; !ok {
			vals[s] = v
		}
	}
	for _, e := range n.view.Log {
		put(e.Slot, e.Value)
	}
	for s, v := range n.learned {
		put(s, v)
	}
	for _, id := range []int{n.view.Leader, n.view.Acceptor} {
		if p, ok := n.px.promises[id]; ok {
			for _, e := range p.Entries {
				put(e.Slot, e.Value)
			}
		}
	}
	top := uint64(0)
	for s := range vals {
		top = max(top, s)
	}
	log := make([]Entry, top)
	for i := range log {
		log[i] = Entry{Slot: uint64(i) + 1, Value: vals[uint64(i)+1]}
	}
	return log
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
