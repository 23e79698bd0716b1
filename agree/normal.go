package agree

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
)

// lead is the leader's state in its epoch: the next free slot, and the
// values it proposed and has not yet seen decided, by slot and by the
// key of their value (so that a request forwarded twice takes one
// slot).
//
// inflight maps valueKey(v) to the slot of v; a value whose key is
// taken by another in flight gets no entry. The key saves hashing and
// copying the value into a string key on every decision; a missing
// entry only costs a value forwarded twice a second slot, which
// Propose's contract already allows.
type lead struct {
	next     uint64
	proposed slots[proposal]
	inflight keyTable
}

type proposal struct {
	value []byte
	sent  int64
}

// accept is the acceptor's state in its epoch: what it accepted, by slot.
type accept struct {
	accepted slots[[]byte]
	max      uint64
}

// Propose submits a value to be decided. The replica forwards it to the
// leader and sends it again every RetryTicks until it sees it decided,
// so a value may be decided more than once (in different slots) when a
// failure hides the first decision: an application that must apply each
// request once makes its values unique and skips repeats. The value must
// not be modified afterwards.
func (n *Node) Propose(v []byte) error {
	if len(v) == 0 {
		return fmt.Errorf("%w: at replica %d", ErrEmpty, n.cfg.ID)
	}
	n.own.add(v, n.now)
	n.send(Message{Type: Forward, To: n.view.Leader, Value: v})
	n.flushLocal()
	return nil
}

func (n *Node) onForward(m *Message) {
	if !n.isLeader() || len(m.Value) == 0 {
		return
	}
	k := valueKey(m.Value)
	at, taken := n.lead.inflight.get(k)
	if taken {
		if p, ok := n.lead.proposed.get(at); ok && bytes.Equal(p.value, m.Value) {
			return
		}
	}
	s := n.lead.next
	n.lead.next++
	n.lead.proposed.put(s, proposal{value: m.Value, sent: n.now})
	if !taken {
		n.lead.inflight.put(k, s)
	}
	n.send(Message{Type: Propose, To: n.view.Acceptor, Slot: s, Value: m.Value})
}

// onPropose is the acceptor's rule: accept only the leader's proposals
// of its own epoch, above the epoch's Base, one value per slot; a
// repeated proposal is answered by repeating the accept.
func (n *Node) onPropose(m *Message) {
	if !n.isAcceptor() || m.Epoch != n.view.Epoch || m.From != n.view.Leader || m.Slot <= n.view.Base {
		return
	}
	if m.Slot <= n.snap.Index {
		return // decided, and compacted here: the proposal is a stale copy
	}
	v, ok := n.acc.accepted.get(m.Slot)
	if !ok {
		v = m.Value
		n.acc.accepted.put(m.Slot, v)
		n.acc.max = max(n.acc.max, m.Slot)
	}
	n.send(Message{Type: Accept, To: All, Slot: m.Slot, Value: v})
}

// onAccept learns a decided value: the acceptor of an epoch accepts at
// most one value per slot, and every later view carries it (see
// docs/design/agree.md), so an accept of any epoch decides its slot.
func (n *Node) onAccept(m *Message) {
	if m.Epoch == n.view.Epoch {
		n.fd.level = 0 // the epoch decides: timeouts as usual again
	}
	if m.Epoch > n.view.Epoch {
		n.send(Message{Type: ViewReq, To: m.From})
	}
	n.learn(m.Slot, m.Value)
	n.applyLearned()
}

func (n *Node) learnAll(es []Entry) {
	for _, e := range es {
		n.learn(e.Slot, e.Value)
	}
	n.applyLearned()
}

func (n *Node) learn(slot uint64, v []byte) {
	if slot <= n.snap.Index { // slot 0 is none; the snapshot covers the rest
		return
	}
	n.hint = max(n.hint, slot)
	if n.learned.has(slot) {
		return
	}
	n.learned.put(slot, v)
	if n.own.size() > 0 && n.own.take(v) { // most replicas most of the time: no hashing
		n.settled.add(slot, v)
	}
	if n.isLeader() {
		n.lead.settle(slot)
	}
}

func (n *Node) applyLearned() {
	for {
		v, ok := n.learned.get(n.applied + 1)
		if !ok {
			return
		}
		n.applied++
		n.decided = append(n.decided, Entry{Slot: n.applied, Value: v})
	}
}

func (n *Node) onHeartbeat(m *Message) {
	if m.Epoch > n.view.Epoch {
		n.send(Message{Type: ViewReq, To: m.From})
		return
	}
	n.hint = max(n.hint, m.Slot)
}

// onFetch answers with decided entries from m.Slot on, at most
// CatchupBatch of them, stopping at the first slot not known here, and
// preceded by this replica's snapshot when m.Slot is compacted here.
func (n *Node) onFetch(m *Message) {
	if n.rec.active {
		return // a restarted replica has nothing to give yet
	}
	r := n.fetchReply(m.Slot)
	if len(r.Entries) > 0 || r.Snap != nil {
		r.To = m.From
		n.send(r)
	}
}

// settle forgets the leader's proposal in slot s: it is decided.
func (l *lead) settle(s uint64) {
	if p, ok := l.proposed.get(s); ok {
		l.unkey(s, p.value)
		l.proposed.del(s)
	}
}

// forget drops the proposals up to slot index (a snapshot covers them).
func (l *lead) forget(index uint64) {
	l.proposed.each(func(s uint64, p *proposal) {
		if s <= index {
			l.unkey(s, p.value)
		}
	})
	l.proposed.forget(index)
}

// unkey removes v's entry from inflight if it names slot s.
func (l *lead) unkey(s uint64, v []byte) {
	if k := valueKey(v); l.inflight.has(k, s) {
		l.inflight.del(k)
	}
}

// valueKey is a 64-bit hash of v, the same in every run (a replica's
// behaviour depends only on its inputs and its seed). Collisions are
// harmless (see lead).
func valueKey(v []byte) uint64 {
	const mul = 0x9e3779b97f4a7c15
	h := uint64(len(v)) * mul
	for ; len(v) >= 8; v = v[8:] {
		h = bits.RotateLeft64((h^binary.LittleEndian.Uint64(v))*mul, 31)
	}
	for _, c := range v {
		h = bits.RotateLeft64((h^uint64(c))*mul, 31)
	}
	return h ^ h>>29
}
