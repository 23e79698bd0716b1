package comm

// Reaching the peers an operation waits on. A transport notices a lost
// peer only on a link it has: TCP connections open on first use and only
// open ones carry heartbeats, and shared memory watches only the ranks
// that have joined its segment. A peer that dies before the pair ever
// talked would leave whatever waits on it waiting for ever. So when an
// operation waits on a peer — a request whose owner goes to sleep on it
// or finds it unfinished in Test (a receive from the peer, from every
// peer for AnySource; a send to it), a probe, a link made to it — the
// world asks its transport, once per peer, to reach that peer (reacher),
// which makes sure a loss is reported from then on. A wait that ends
// while its owner spins never asks, so the message paths pay nothing,
// and a job dials only the peers it waits on (every one only if a
// wildcard receive waits), never all of them at join.
//
// Each peer's reach state moves unreached -> reaching -> reached, or
// back to unreached when the transport cannot reach it yet (a mux before
// Route), by compare-and-swap, so that one goroutine at a time calls
// Reach.

// reacher is a transport that can watch a peer it has no link to yet.
// Reach asks it to make sure that, from now on, peer is reported Lost
// once its process is gone, even if no frame was ever exchanged with it:
// a TCP endpoint dials the peer, so that heartbeats cover the connection;
// shared memory checks the process of a peer that has not joined its
// segment. It reports false if it cannot do so yet, and the world asks
// again at its next wait. Reach must not block; the world calls it at
// most once per peer for which it returned true.
type reacher interface {
	Reach(peer int) bool
}

// A peer's reach state (peer.reach).
const (
	peerUnreached uint32 = iota
	peerReaching
	peerReached
)

// waiting has the transport watch what r waits on — its peer, every
// peer for an AnySource receive — and withdraws an AnySource receive that
// no rank is left to satisfy (World.countLost). r's owner calls it when it
// is about to sleep on r, or finds it unfinished in Test: waits that end
// while the owner spins never get here, so the message paths pay nothing.
func (r *Request) waiting() {
	if r.peer != AnySource {
		r.w.reach(r.peer)
		return
	}
	r.w.reachAll()
	if err := r.w.anyErr(); err != nil && !r.abort.Load() { // not withdrawn yet
		r.withdraw(err)
	}
}

// reach has the transport watch peer, which an operation is about to
// wait on.
func (w *World) reach(peer int) {
	if w.peers[peer].reach.Load() != peerReached {
		w.reachSlow(peer)
	}
}

// reachSlow is reach for a peer not reached yet: it calls Reach unless
// another goroutine is calling it.
func (w *World) reachSlow(peer int) {
	p := &w.peers[peer]
	if !p.reach.CompareAndSwap(peerUnreached, peerReaching) {
		return // reached, or another goroutine is reaching it
	}
	if peer == w.cfg.Rank || w.reacher == nil || w.reacher.Reach(peer) {
		p.reach.Store(peerReached)
		return
	}
	p.reach.Store(peerUnreached)
}

// reachAll reaches every peer, for an operation that may be satisfied by
// any of them (AnySource).
func (w *World) reachAll() {
	if w.reachedAll.Load() {
		return
	}
	all := true
	for i := range w.peers {
		w.reach(i)
		all = all && w.peers[i].reach.Load() == peerReached
	}
	if all {
		w.reachedAll.Store(true)
	}
}
