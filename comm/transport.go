package comm

import "context"

// Kind says what a frame carries. The values are the wire protocol between
// worlds; a transport carries them untouched.
type Kind uint8

// The frame kinds. Enums start at 1 so that a zero Header is invalid.
const (
	// KindEager carries a whole message: Tag, Length = len(payload).
	KindEager Kind = 1 + iota
	// KindRTS announces a rendezvous message: Tag, Seq = the sender's
	// transfer id, Length = the message length; no payload.
	KindRTS
	// KindCTS grants a rendezvous: Seq = the sender's transfer id,
	// Length = how many bytes the receiver takes (less than the message
	// when its buffer is short); no payload.
	KindCTS
	// KindData carries a chunk of a granted rendezvous: Seq = transfer id,
	// Length = the chunk's offset in the message. FlagAbort instead says
	// the sender gave the message up.
	KindData
	// KindCredit returns Length bytes of eager credit to the sender.
	KindCredit
)

// FlagAbort on a KindData frame says the sender abandoned the transfer.
const FlagAbort uint8 = 1

// Header is the fixed part of every frame. Source is the sending rank;
// transports may leave it to the world, which always knows the peer.
type Header struct {
	Kind   Kind
	Flags  uint8
	Comm   uint32
	Source int32
	Tag    int32
	Seq    uint64
	Length uint64
}

// Transport moves frames between this world and its peers.
//
// Concurrency contract: Send may be called by any number of goroutines at
// once. Frames that one goroutine sends to one peer, one call after the
// other, arrive in that order. When Send returns, the transport no longer
// refers to payload. A Send to a lost peer fails rather than waits.
type Transport interface {
	// Send delivers h and payload to rank peer, or fails.
	Send(ctx context.Context, peer int, h Header, payload []byte) error
	// Close releases the transport; peers see this rank as lost.
	Close() error
}

// Poller is a Transport whose arrived frames a waiting goroutine can read
// and deliver itself. Poll delivers what has arrived from peer (from every
// peer if peer is negative) without blocking and reports whether it
// delivered anything; it is safe for any number of goroutines and must not
// be called from Deliver. PollDone says the poller of peer is going to
// sleep, so the transport should watch peer itself again. A blocking call
// polls briefly before it sleeps (see Request.spin).
type Poller interface {
	Poll(peer int) bool
	PollDone(peer int)
}

// Queuer is a Transport that can also queue a frame for a background
// writer that combines it with others, rather than write it at once. Queue
// keeps Send's contract, order between the two included; Isend uses it, so
// that a window of small messages leaves in few system calls.
type Queuer interface {
	Queue(ctx context.Context, peer int, h Header, payload []byte) error
}

// Events is what a transport reports upwards. The world supplies it when
// the transport is opened, so the transport never sees a half-built world.
//
// Contract for transports: Deliver calls for one peer are serial and in
// that peer's send order; payload is valid only during the call. Lost is
// called at most once per peer, after the last Deliver from that peer.
// Neither callback may be called after Close returns. The callbacks do not
// block on the network, so a transport may call them from its reader.
type Events struct {
	Deliver func(peer int, h Header, payload []byte)
	Lost    func(peer int, err error)
}

// Opener creates a transport wired to a world's events.
type Opener func(ev Events) (Transport, error)
