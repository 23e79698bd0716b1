package agree

import "fmt"

// Type says what a Message is for. The first four carry the normal
// case; the rest replace a failed leader or acceptor and help replicas
// that fell behind.
type Type uint8

// The message types.
const (
	// Forward carries a client's Value from a replica to the leader.
	Forward Type = 1 + iota
	// Propose asks the acceptor to accept Value in Slot (leader to acceptor).
	Propose
	// Accept announces that the acceptor accepted Value in Slot; it goes to
	// every replica (To is All), and receiving it decides the slot.
	Accept
	// Heartbeat says the leader or acceptor of Epoch is alive; Slot is the
	// highest slot it proposed or accepted.
	Heartbeat
	// Prepare is phase 1 of the classic Paxos that chooses the
	// configuration of Epoch, with Ballot.
	Prepare
	// Promise answers a Prepare: it carries the ballot and view the sender
	// last voted for (Voted, View) and, from the leader or acceptor of the
	// epoch being replaced, the entries it proposed or accepted (Entries),
	// after which it acts no more in that epoch (it is sealed).
	Promise
	// Vote is phase 2: it asks the replicas to vote for View under Ballot.
	Vote
	// Voted answers a Vote.
	Voted
	// Nack refuses a Prepare or Vote; Ballot is the ballot promised instead.
	Nack
	// Decide announces the chosen View of a new epoch.
	Decide
	// Fetch asks for decided entries from Slot on.
	Fetch
	// Entries answers a Fetch with decided entries.
	Entries
	// ViewReq asks for the sender's current View (the receiver fell behind).
	ViewReq
	// Recover asks every replica for its view: the sender restarted
	// without its state (see Config.Restarted).
	Recover
	// Recovered answers a Recover with the sender's View, the highest
	// epoch it knows of (Epoch: its view's or the one it voted for) and
	// the slots it applied (Slot).
	Recovered
	maxType
)

var typeNames = [...]string{"?", "Forward", "Propose", "Accept", "Heartbeat", "Prepare", "Promise",
	"Vote", "Voted", "Nack", "Decide", "Fetch", "Entries", "ViewReq", "Recover", "Recovered"}

func (t Type) String() string {
	if t == 0 || t >= maxType {
		return fmt.Sprintf("Type(%d)", t)
	}
	return typeNames[t]
}

// All, as Message.To, addresses every replica (the sender included): the
// driver delivers it by one broadcast.
const All = -1

// Ballot orders the attempts to choose a configuration: by Round, then
// by the proposing replica's ID.
type Ballot struct {
	Round uint64
	ID    int
}

// Less reports whether b orders before c.
func (b Ballot) Less(c Ballot) bool {
	return b.Round < c.Round || (b.Round == c.Round && b.ID < c.ID)
}

// Entry is a decided (or, in a seal, proposed or accepted) value of a
// slot. A nil Value is a no-op that fills a slot a failed leader assigned
// to nothing that survived.
type Entry struct {
	Slot  uint64
	Value []byte
}

// View is the configuration of an epoch: who leads, who accepts, and
// every entry decided before it: slots 1..Snap.Index as the snapshot
// Snap (none when nil), the rest up to Base as Log (no gaps). The
// leader of the epoch proposes from Base+1 on; its acceptor accepts only
// there. A replica that compacted its log may hold its view with a
// later snapshot in place of the first entries of Log (Snap.Index may
// then pass Base): the same decided state, held in less memory.
type View struct {
	Epoch    uint64
	Leader   int
	Acceptor int
	Base     uint64
	Snap     *Snapshot
	Log      []Entry
}

// Message is what replicas send each other. Which fields mean something
// depends on Type (see its constants).
type Message struct {
	Type    Type
	From    int
	To      int // a replica, or All
	Epoch   uint64
	Slot    uint64
	Value   []byte
	Ballot  Ballot
	Voted   Ballot
	View    *View
	Entries []Entry
	// Snap is a replica's snapshot: in Entries, for a replica behind the
	// sender's compaction point; in a Promise that seals, the state below
	// the entries of the seal.
	Snap *Snapshot
}

func (m Message) String() string {
	return fmt.Sprintf("%v %d->%d e%d s%d b%v", m.Type, m.From, m.To, m.Epoch, m.Slot, m.Ballot)
}

// Ready is what a Node has for its caller after some steps: messages to
// send, and entries decided in slot order, each slot once (no-ops, with
// a nil Value, included so that every replica sees the same sequence).
//
// Snapshot, when not nil, replaces the application's state: the replica
// restarted or fell behind the others' compaction point and installed a
// snapshot of slots 1..Snapshot.Index. The caller restores it before it
// applies Decided, which then starts at Snapshot.Index+1.
type Ready struct {
	Messages []Message
	Decided  []Entry
	Snapshot *Snapshot
}
