package agree

import (
	"fmt"
	"slices"
)

// Snapshot is the application's state after slots 1..Index were
// applied, as bytes only the application reads. Replicas agree on every
// decided slot, so any replica's snapshot at Index is the same state.
type Snapshot struct {
	Index uint64
	Data  []byte
}

func snapIndex(s *Snapshot) uint64 {
	if s == nil {
		return 0
	}
	return s.Index
}

// Compact tells the replica that the application's state after slot
// index is data: the replica keeps data as its snapshot and forgets the
// decided entries up to index, so that its memory stays bounded under a
// long load. A replica that asks for entries the replica has forgotten
// gets the snapshot and the entries after it. index must be a slot the
// replica handed out in Ready.Decided and later than its last snapshot;
// otherwise Compact changes nothing and returns ErrCompact. data must
// not be modified afterwards.
func (n *Node) Compact(index uint64, data []byte) error {
	if index > n.applied || index <= n.snap.Index {
		return fmt.Errorf("%w: at slot %d, replica %d applied %d and compacted at %d",
			ErrCompact, index, n.cfg.ID, n.applied, n.snap.Index)
	}
	n.snap = Snapshot{Index: index, Data: data}
	n.forget(index)
	if index > snapIndex(n.view.Snap) {
		n.view.Log = trimLog(n.view.Log, index)
		s := n.snap
		n.view.Snap = &s
	}
	return nil
}

// forget drops what the replica holds about slots up to index: they are
// decided and covered by its snapshot. Leader and acceptor state goes
// too, which the seal's snapshot covers (see sealEntries).
func (n *Node) forget(index uint64) {
	n.learned.forget(index)
	n.acc.accepted.forget(index)
	n.lead.forget(index)
}

// trimLog returns the entries of log after slot index.
func trimLog(log []Entry, index uint64) []Entry {
	i, _ := slices.BinarySearchFunc(log, index+1, func(e Entry, s uint64) int {
		switch {
		case e.Slot < s:
			return -1
		case e.Slot > s:
			return 1
		}
		return 0
	})
	return slices.Clone(log[i:])
}

// install replaces the replica's applied state by s when s is ahead of
// it: the entries handed out but not yet taken by the caller are
// superseded by the snapshot, which Ready returns instead. A value this
// replica proposed that was decided in a skipped slot is proposed again
// (and may be decided twice, as after any failure).
func (n *Node) install(s *Snapshot) {
	if s == nil || s.Index <= n.applied {
		return
	}
	n.snap = *s
	n.applied = s.Index
	n.hint = max(n.hint, s.Index)
	n.unsettle(s.Index)
	n.forget(s.Index)
	n.decided = nil
	c := *s
	n.ready = &c
}

// unsettle puts back in own, to be proposed at the next tick, this
// replica's values learned in slots up to index that were never handed
// out: the snapshot supersedes them, so without it they would be
// applied here neither in their slot nor in another, and a client that
// waits for its value to be applied at this replica would wait forever.
func (n *Node) unsettle(index uint64) {
	k := n.settled.upTo(index)
	for _, e := range n.settled[:k] {
		n.own.add(e.Value, n.now-int64(n.cfg.RetryTicks))
	}
	n.settled.drop(k)
}

// fetchReply answers a Fetch from slot from: the snapshot first when the
// asker is behind this replica's compaction point.
func (n *Node) fetchReply(from uint64) Message {
	m := Message{Type: Entries}
	if from <= n.snap.Index && n.snap.Index > 0 {
		s := n.snap
		m.Snap = &s
		from = n.snap.Index + 1
	}
	for s := max(from, 1); len(m.Entries) < n.cfg.CatchupBatch; s++ {
		v, ok := n.learned.get(s)
		if !ok {
			break
		}
		m.Entries = append(m.Entries, Entry{Slot: s, Value: v})
	}
	return m
}

// onEntries installs the snapshot and learns the entries of a catch-up
// reply; when they moved the replica on and more is known to exist, it
// asks for the next batch at once rather than at its next retry, so a
// long catch-up takes one round trip per batch.
func (n *Node) onEntries(m *Message) {
	before := n.applied
	n.install(m.Snap)
	n.learnAll(m.Entries)
	if n.applied > before && n.hint > n.applied {
		n.fd.fetch = n.now - int64(n.cfg.RetryTicks)
		n.catchUp()
	}
}
