package comm

// Eager credit (flow control for unexpected messages). Every rank starts
// with Config.share() bytes of credit towards each peer. An eager send
// spends what its message will cost the receiver stored unexpected
// (eagerCost); a sender short of credit uses the rendezvous protocol
// instead. Every announcement (RTS) is charged rtsCost too, but it is
// sent even without credit, taking the credit below zero (chargeRTS):
// MPI's progress rule wants a posted receive to find its message however
// many others wait unmatched, and only the announcement tells the
// receiver the message exists. The receiver gives credit back once it has
// taken the message or announcement out of its table, in batches of
// w.batch bytes so that small messages do not each cost a credit frame.
// Hence the eager messages a rank holds unexpected never cost more than
// Config.UnexpectedBudget; beyond it it holds only announcements, one per
// rendezvous send in flight to it, and no eager data comes until
// receives have brought the credit back above zero.

import (
	"context"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// spend takes n bytes of eager credit towards peer if there are that many.
// Any goroutine may call it; the compare-and-swap loop never lets credit
// go below zero.
func (w *World) spend(peer int, n int64) bool {
	if w.serial {
		return w.spendSerial(peer, n)
	}
	c := &w.peers[peer].credit
	for {
		have := c.Load()
		if have < n {
			return false
		}
		if c.CompareAndSwap(have, have-n) {
			return true
		}
	}
}

// spendSerial is spend in a serialized world, whose one caller at a time
// moves the shared credit into p.taken with one swap when it runs short
// and spends it there with plain arithmetic: no locked instruction per
// send. Credit coming back (World.deliver) still goes to the shared count,
// for the next refill. Since a serialized world receives only in its
// calls, a rank that only sends may have its credit waiting unread in the
// transport: short of it, spendSerial polls once before it gives up.
func (w *World) spendSerial(peer int, n int64) bool {
	p := &w.peers[peer]
	if p.taken < n {
		p.taken += p.credit.Swap(0)
		if p.taken < n {
			w.pollSerial()
			p.taken += p.credit.Swap(0)
		}
		if p.taken < n {
			return false
		}
	}
	p.taken -= n
	return true
}

// owe records that n bytes of peer's credit are free again and returns a
// batch once enough has gathered. Any goroutine may call it; the swap
// hands each owed byte to exactly one Credit frame.
func (w *World) owe(peer int, n int64) {
	if n == 0 {
		return
	}
	p := &w.peers[peer]
	if p.owed.Add(n) < w.batch {
		return
	}
	if give := p.owed.Swap(0); give > 0 {
		w.later(action{kind: actCredit, peer: peer, n: int(give)})
	}
}

// oweDelivered is owe for the delivery path (onEager), whose calls for
// one peer are serial by the transport's contract, so that it needs no
// atomic instruction per message: it gathers in owedHere, which only the
// delivery path touches, and passes the sum on to owe once it reaches an
// eighth of a batch. So at most batch/8 more bytes wait to be returned
// than with owe alone.
func (w *World) oweDelivered(peer int, n int64) {
	if n == 0 {
		return
	}
	p := &w.peers[peer]
	p.owedHere += n
	if p.owedHere >= max(1, w.batch/8) {
		w.owe(peer, p.owedHere)
		p.owedHere = 0
	}
}

// chargeRTS charges an announcement to peer to this rank's credit towards
// it, below zero if need be (see above). Only a serialized world's one
// caller touches taken, and announcements to this rank cost nothing.
func (w *World) chargeRTS(peer int) {
	switch {
	case peer == w.cfg.Rank:
	case w.serial:
		w.peers[peer].taken -= rtsCost
	default:
		w.peers[peer].credit.Add(-rtsCost)
	}
}

// returnCredit sends a Credit frame. If it cannot be sent the peer is
// lost, and its credit no longer matters.
func (w *World) returnCredit(peer int, n int64) {
	h := frame.Header{Kind: frame.Credit, Aux: uint64(n)}
	_ = w.route(context.WithoutCancel(w.ctx), peer, h, nil)
}
