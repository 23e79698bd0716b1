package group

import "context"

// Net carries a replica's frames to the other replicas of its group.
// The replica's goroutine calls Send and Broadcast, one call at a time,
// and reuses the frame once the call returned (a Net copies what it
// keeps);
// the Net hands frames that arrive to the deliver function it was given
// when it was made (from any goroutine).
type Net interface {
	// Send sends frame to replica to. An error that means the replica is
	// gone makes the replica report it to the protocol.
	Send(ctx context.Context, to int, frame []byte) error
	// Broadcast sends frame to every other replica: down a tree rooted at
	// this replica, or to each in turn. It is used for the acceptor's
	// accepts, the one broadcast per decision of 1Paxos.
	Broadcast(ctx context.Context, frame []byte) error
}

// Mode says how a Net broadcasts.
type Mode int

// The broadcast modes.
const (
	// Tree sends down a machine-aware tree (package tree's Adaptive
	// topology over the machine model) rooted at the sender.
	Tree Mode = 1 + iota
	// Sequential sends to every other replica in turn, from the sender
	// itself: the baseline of Smelt's §5.6.
	Sequential
)

func (m Mode) String() string {
	switch m {
	case Tree:
		return "tree"
	case Sequential:
		return "sequential"
	}
	return "Mode(?)"
}

// ParseMode parses "tree" or "sequential".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "tree":
		return Tree, nil
	case "sequential":
		return Sequential, nil
	}
	return 0, errMode(s)
}
