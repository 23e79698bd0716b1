package agree

import (
	"fmt"
	"math/rand/v2"
)

// Node is one replica of a 1Paxos group as a deterministic state machine:
// Step feeds it a message, Tick advances its clock, Propose submits a
// value, Report says a peer is unreachable, and Ready hands back the
// messages to send and the entries decided since the last call. It does
// no I/O and starts no goroutines.
//
// A Node is not safe for concurrent use: one goroutine at a time calls
// its methods (the driver's loop).
type Node struct {
	cfg  Config
	rand *rand.Rand
	now  int64

	view    View          // the current configuration (Log is only what was carried in it)
	learned slots[[]byte] // decided values known here, by slot
	applied uint64        // slots 1..applied are decided and handed out
	hint    uint64        // highest slot the leader or acceptor says exists
	sealed  uint64        // acts as leader or acceptor in no epoch <= sealed
	mute    uint64        // promises, votes and proposes in no choice of an epoch <= mute
	snap    Snapshot      // the application's state at snap.Index; learned holds only later slots
	rec     recovery      // a restarted replica's recovery

	lead lead      // leader state, for the current epoch
	acc  accept    // acceptor state, for the current epoch
	own  ownValues // this replica's undecided values, with when last sent
	// settled holds this replica's own values that are learned but not
	// yet handed out in Ready: a snapshot that skips their slot puts
	// them back in own (see install). Those in slots up to applied are
	// handed out by the next Ready (install drops the ones it skips).
	settled settledValues
	fd      detector
	px      paxos // reconfiguration: voter and proposer state

	out     []Message
	decided []Entry
	ready   *Snapshot // installed since the last Ready
	local   []Message // messages to this replica, handled before Step returns
	spare   Ready     // the slices the last Ready returned, reused by the next
}

// New returns the replica cfg.ID of a group of cfg.Replicas, in epoch 1,
// whose leader is replica 0 and acceptor replica 1 (replica 0 alone in a
// group of one).
func New(cfg Config) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	n := &Node{
		cfg:  cfg,
		rand: rand.New(rand.NewPCG(cfg.Seed, uint64(cfg.ID))),
		view: View{Epoch: 1, Leader: 0, Acceptor: 1 % cfg.Replicas},
	}
	n.enter()
	if cfg.Restarted {
		n.startRecovery()
	}
	return n, nil
}

// Status is a summary of a replica's state, for tests and monitoring.
type Status struct {
	ID       int
	Epoch    uint64
	Leader   int
	Acceptor int
	Applied  uint64 // slots 1..Applied are decided and were handed out
	Pending  int    // values proposed here and not yet decided
	// Recovering is true while a restarted replica has not yet heard
	// enough replicas or not caught up with what they had applied.
	Recovering bool
	// Compacted is the index of the replica's snapshot (0: none).
	Compacted uint64
	// Held is the number of entries the replica holds in memory: decided
	// entries after its snapshot, its view's log, and the leader's and
	// acceptor's entries of the epoch.
	Held int
}

// Status returns the replica's current state.
func (n *Node) Status() Status {
	return Status{ID: n.cfg.ID, Epoch: n.view.Epoch, Leader: n.view.Leader,
		Acceptor: n.view.Acceptor, Applied: n.applied, Pending: n.own.size(),
		Recovering: n.rec.active || n.applied < n.rec.target, Compacted: n.snap.Index,
		Held: n.learned.size() + len(n.view.Log) + n.lead.proposed.size() + n.acc.accepted.size()}
}

// Ready returns the messages to send and the entries decided since the
// last call, and forgets them: the caller sends every message (one To
// All by a broadcast to every other replica) and applies the entries in
// order. Its slices are the caller's until the next call of Ready, which
// reuses them.
func (n *Node) Ready() Ready {
	r := Ready{Messages: n.out, Decided: n.decided, Snapshot: n.ready}
	if len(n.settled) > 0 {
		n.settled.drop(n.settled.upTo(n.applied)) // handed out now
	}
	clear(n.spare.Messages)
	clear(n.spare.Decided)
	n.out, n.decided, n.ready = n.spare.Messages[:0], n.spare.Decided[:0], nil
	n.spare = Ready{Messages: r.Messages, Decided: r.Decided}
	return r
}

// HasReady reports whether Ready would return anything.
func (n *Node) HasReady() bool { return len(n.out) > 0 || len(n.decided) > 0 || n.ready != nil }

// Step hands the replica a message addressed to it (or to All). A
// message no replica of the group could have sent is refused with
// ErrMessage; anything else is accepted, stale or not. The replica
// keeps the message's values and snapshots (it hands them out later in
// Ready and in messages to others): the caller must not modify them
// afterwards.
func (n *Node) Step(m Message) error {
	if err := n.check(&m); err != nil {
		return err
	}
	n.step(&m)
	n.flushLocal()
	return nil
}

func (n *Node) check(m *Message) error {
	r := n.cfg.Replicas
	switch {
	case m.Type == 0 || m.Type >= maxType:
		return fmt.Errorf("%w: type %d from %d", ErrMessage, m.Type, m.From)
	case m.From < 0 || m.From >= r:
		return fmt.Errorf("%w: %v from replica %d of a group of %d", ErrMessage, m.Type, m.From, r)
	case m.To != All && m.To != n.cfg.ID:
		return fmt.Errorf("%w: %v for replica %d delivered to %d", ErrMessage, m.Type, m.To, n.cfg.ID)
	case m.View != nil && !validView(*m.View, r):
		return fmt.Errorf("%w: %v from %d carries view of epoch %d with leader %d, acceptor %d, base %d, snapshot at %d and %d entries",
			ErrMessage, m.Type, m.From, m.View.Epoch, m.View.Leader, m.View.Acceptor, m.View.Base, snapIndex(m.View.Snap), len(m.View.Log))
	}
	return nil
}

func validView(v View, replicas int) bool {
	if v.Leader < 0 || v.Leader >= replicas || v.Acceptor < 0 || v.Acceptor >= replicas {
		return false
	}
	first := snapIndex(v.Snap)
	if uint64(len(v.Log)) != v.Base-min(first, v.Base) {
		return false
	}
	for i, e := range v.Log {
		if e.Slot != first+uint64(i)+1 {
			return false
		}
	}
	return true
}

func (n *Node) step(m *Message) {
	n.fd.heard(n, m.From)
	switch m.Type {
	case Forward:
		n.onForward(m)
	case Propose:
		n.onPropose(m)
	case Accept:
		n.onAccept(m)
	case Heartbeat:
		n.onHeartbeat(m)
	case Fetch:
		n.onFetch(m)
	case Entries:
		n.onEntries(m)
	case Recover:
		n.onRecover(m)
	case Recovered:
		n.onRecovered(m)
	case ViewReq:
		n.send(Message{Type: Decide, To: m.From, View: n.fullView()})
	default:
		n.stepPaxos(m)
	}
}

// send queues m from this replica; a message to itself is handled before
// the current call returns, one to All goes out and is handled here too.
func (n *Node) send(m Message) {
	m.From = n.cfg.ID
	if m.Epoch == 0 {
		m.Epoch = n.view.Epoch
	}
	if m.To == n.cfg.ID || m.To == All {
		n.local = append(n.local, m)
	}
	if m.To != n.cfg.ID && n.cfg.Replicas > 1 {
		n.out = append(n.out, m)
	}
}

func (n *Node) flushLocal() {
	for i := 0; i < len(n.local); i++ { // step may append
		m := n.local[i]
		n.step(&m)
	}
	clear(n.local)
	n.local = n.local[:0]
}

// isLeader and isAcceptor say whether this replica acts in the role in
// the current epoch: a replica sealed for the epoch does not.
func (n *Node) isLeader() bool { return n.view.Leader == n.cfg.ID && n.sealed < n.view.Epoch }

func (n *Node) isAcceptor() bool { return n.view.Acceptor == n.cfg.ID && n.sealed < n.view.Epoch }

func (n *Node) majority() int { return n.cfg.Replicas/2 + 1 }
