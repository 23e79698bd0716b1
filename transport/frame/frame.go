package frame

import "fmt"

// Kind says what a frame is for and how to read its Header's Seq and Aux.
// The numbers are on the wire (docs/wire-format.md) and in the
// shared-memory rings (docs/shm-format.md), so they never change.
type Kind uint8

// The frame kinds. Kinds start at 1 so that a zero Header is invalid.
// Eager to Credit carry the comm layer's traffic: a transport delivers
// them untouched, and they are all its Send accepts (see User); their
// fields mean what comm makes them mean, given below for its
// point-to-point protocol. Hello to Ping belong to transport/tcp, which
// sends and consumes them itself.
const (
	// Eager carries a whole message: Tag, and Aux = len(payload).
	Eager Kind = 1 + iota
	// RTS announces a rendezvous message: Tag, Seq = the sender's
	// transfer id, Aux = the message length; no payload, or with comm's
	// FlagPull the 8-byte little-endian address of the sender's buffer,
	// offered to be pulled over shared memory.
	RTS
	// CTS grants a rendezvous: Seq = the sender's transfer id, Aux = how
	// many bytes the receiver takes (less than the message when its
	// buffer is short); no payload. With comm's FlagPull it ends a pulled
	// one instead (FIN: Aux bytes were pulled; with FlagAbort too, the
	// offer was revoked and nothing was).
	CTS
	// Data carries a chunk of a granted rendezvous: Seq = the sender's
	// transfer id, Aux = the chunk's offset in the message. A Data frame
	// with comm's FlagAbort instead says the sender gave the message up,
	// and with FlagPull too, revokes its offer to be pulled.
	Data
	// Credit returns Aux bytes of flow-control credit to the sender.
	Credit
	// Hello opens a TCP handshake: the acceptor's rank and nonce.
	Hello
	// Auth carries a TCP handshake proof: the dialer's answer to Hello,
	// with the job size in Aux, or the acceptor's answer to that.
	Auth
	// Bye ends a TCP connection on purpose: a graceful close, or a refused
	// handshake with the reason (Aux) and a message (payload).
	Bye
	// Ping keeps an idle TCP connection alive so that a silent peer is
	// noticed.
	Ping
	lastKind = Ping
)

var kindNames = [...]string{"", "Eager", "RTS", "CTS", "Data", "Credit", "Hello", "Auth", "Bye", "Ping"}

// String returns the kind's name, or "Kind(n)" for an unknown kind.
func (k Kind) String() string {
	if k.Valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Valid reports whether k is one of the kinds above.
func (k Kind) Valid() bool { return k >= Eager && k <= lastKind }

// User reports whether k is one of the comm layer's kinds, Eager to
// Credit, which a transport's user may send and receive.
func (k Kind) User() bool { return k >= Eager && k <= Credit }

// Header is the fixed part of every frame, without what a transport's
// encoding adds (a mark or magic and version, the payload length).
// Transports carry every field untouched except Source.
type Header struct {
	// Kind says what the frame is for and how to read Seq and Aux.
	Kind Kind
	// Flags belong to the comm layer (abort, pull, signal); transports define
	// none.
	Flags uint8
	// Comm is the communicator the frame belongs to.
	Comm uint32
	// Source is the sending rank. Transports between processes set it in
	// Send and refuse a frame whose Source is not the peer it came from;
	// others may leave it to the comm world, which always knows the peer.
	Source int32
	// Tag is the message tag.
	Tag int32
	// Seq is a transfer id or sequence number; see the kinds.
	Seq uint64
	// Aux is a kind-specific length, offset or credit; see the kinds.
	Aux uint64
}
