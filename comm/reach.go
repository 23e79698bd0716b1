package comm

// Reaching the peers an operation waits on. A transport notices a lost
// peer only on a link it has: TCP connections open on first use and only
// open ones carry heartbeats, and shared memory watches only the ranks
// that have joined its segment. A peer that dies before the pair ever
// talked would leave whatever waits on it waiting for ever. So before an
// operation waits on a peer — a receive or probe from it (from every peer
// for AnySource), a rendezvous send to it, a link to it — the world asks
// its transport, once per peer, to reach that peer (Reacher), which makes
// sure a loss is reported from then on.
//
// Each peer's reach state moves unreached -> reaching -> reached, or
// back to unreached when the transport cannot reach it yet (a Mux before
// Route), by compare-and-swap, so that one goroutine calls Reach; a
// reached peer costs a waiting operation one atomic load.

// Reacher is a Transport that can watch a peer it has no link to yet.
// Reach asks it to make sure that, from now on, peer is reported Lost
// once its process is gone, even if no frame was ever exchanged with it:
// a TCP endpoint dials the peer, so that heartbeats cover the connection;
// shared memory checks the process of a peer that has not joined its
// segment. It reports false if it cannot do so yet, and the world asks
// again at its next wait. Reach must not block; the world calls it at
// most once per peer for which it returned true.
type Reacher interface {
	Reach(peer int) bool
}

// A peer's reach state (peer.reach).
const (
	peerUnreached uint32 = iota
	peerReaching
	peerReached
)

// reach has the transport watch peer, which an operation is about to
// wait on.
func (w *World) reach(peer int) {
	if w.peers[peer].reach.Load() != peerReached {
		w.reachSlow(peer)
	}
}

// reachSlow is reach for a peer not reached yet.
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
