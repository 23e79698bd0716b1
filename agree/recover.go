package agree

import (
	"maps"
	"math"
	"slices"
)

// recovery is a restarted replica's state until it has heard enough
// replicas (active), then the slot it must apply before it serves again
// (target).
//
// A replica that lost its state forgot what a 1Paxos replica must not
// forget: as acceptor, the values it accepted in its epoch; as leader,
// the slots it gave out; as a voter of the reconfiguration, its promises
// and votes. So it takes none of these roles again in any epoch or
// choice it may have taken part in before the crash, and learns which
// those are from the others:
//
//   - it asks every replica for its view (Recover) and waits for
//     answers from Replicas-majority+1 others. Any view chosen before
//     the crash was voted for by a majority, which such a set of others
//     meets, so the highest epoch they report (of their view, or of the
//     view they voted for), top, is at least every chosen epoch;
//   - before the crash it acted in epochs <= top and in choices of
//     epochs <= top+1, so it stays sealed for epochs <= top and mute
//     (no promise, vote or proposal) for choices of epochs <= top+1.
//     It takes part again from the epoch after the next one the others
//     choose without it.
type recovery struct {
	active bool
	acks   map[int]Message
	sent   int64
	target uint64
}

// startRecovery makes the replica a restarted one: no role, no vote,
// until the others have answered its Recover.
func (n *Node) startRecovery() {
	n.sealed, n.mute = math.MaxUint64, math.MaxUint64
	n.rec = recovery{active: true, acks: map[int]Message{}, sent: n.now}
	n.send(Message{Type: Recover, To: All})
}

// recoverTick asks again while too few replicas have answered.
func (n *Node) recoverTick() {
	if n.rec.active && n.now-n.rec.sent >= int64(n.cfg.RetryTicks) {
		n.rec.sent = n.now
		n.send(Message{Type: Recover, To: All})
	}
}

// onRecover answers a restarted replica with this replica's view, the
// highest epoch it voted for or is in, and the slots it applied; a
// replica that is itself recovering knows nothing worth saying.
func (n *Node) onRecover(m *Message) {
	if n.rec.active || m.From == n.cfg.ID {
		return
	}
	e := n.view.Epoch
	if n.px.votedView != nil {
		e = max(e, n.px.votedView.Epoch)
	}
	n.send(Message{Type: Recovered, To: m.From, Epoch: e, Slot: n.applied, View: n.fullView()})
}

// onRecovered counts an answer; with enough of them the replica adopts
// the latest view it heard of, seals and mutes itself as recovery says
// and catches up to the slots the others had applied.
func (n *Node) onRecovered(m *Message) {
	if !n.rec.active || m.From == n.cfg.ID || m.View == nil {
		return
	}
	n.rec.acks[m.From] = *m
	if len(n.rec.acks) < n.cfg.Replicas-n.majority()+1 {
		return
	}
	var top uint64
	best := n.view
	for _, id := range slices.Sorted(maps.Keys(n.rec.acks)) {
		a := n.rec.acks[id]
		top = max(top, a.Epoch)
		n.rec.target = max(n.rec.target, a.Slot)
		if a.View.Epoch > best.Epoch {
			best = *a.View
		}
	}
	n.rec = recovery{target: n.rec.target}
	n.sealed, n.mute = top, top+1
	n.hint = max(n.hint, n.rec.target)
	if best.Epoch > n.view.Epoch {
		n.adopt(best)
	}
}
