package tcp

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Wire constants. The layout is documented in docs/wire-format.md.
const (
	// Magic is the first byte of every frame; it lets a reader tell a
	// Plexus peer from a stranger speaking another protocol at once.
	Magic = 0xA7
	// Version is the second byte of every frame. A peer speaking another
	// version is refused during the handshake.
	Version = 1
	// HeaderSize is the length of the fixed header that precedes every
	// payload.
	HeaderSize = 36
)

// Kind says what a frame is for.
type Kind uint8

// Frame kinds. Eager to Credit carry the comm layer's traffic and are all
// Send accepts; Hello to Ping belong to the transport itself.
const (
	// Eager carries a whole message: Seq is the sender's message sequence.
	Eager Kind = 1 + iota
	// RTS asks the receiver to accept a rendezvous message: Seq is the
	// sender's request id and Aux the message's total length.
	RTS
	// CTS answers an RTS: Seq echoes the sender's request id and Aux is the
	// receiver's request id.
	CTS
	// Data is one chunk of a rendezvous payload: Seq is the receiver's
	// request id (from the CTS) and Aux the chunk's offset in the message.
	Data
	// Credit returns flow-control credit to the sender; Aux is the amount,
	// in units the comm layer defines.
	Credit
	// Hello opens the handshake: the acceptor's rank and nonce.
	Hello
	// Auth carries a handshake proof: the dialer's answer to Hello, or the
	// acceptor's answer to that.
	Auth
	// Bye ends a connection on purpose: a graceful close, or a refused
	// handshake with the reason (Aux) and a message (payload).
	Bye
	// Ping keeps an idle connection alive so that a silent peer is noticed.
	Ping
	lastKind = Ping
)

var kindNames = [...]string{"", "Eager", "RTS", "CTS", "Data", "Credit", "Hello", "Auth", "Bye", "Ping"}

// String returns the kind's name, or "Kind(n)" for an unknown kind.
func (k Kind) String() string {
	if k.valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

func (k Kind) valid() bool { return k >= Eager && k <= lastKind }

// userKind reports whether callers of Send may use k.
func (k Kind) userKind() bool { return k >= Eager && k <= Credit }

// Header is a frame's fixed header without the wire-only fields (magic,
// version and payload length, which AppendFrame derives).
type Header struct {
	// Kind says what the frame is for and how to read Seq and Aux.
	Kind Kind
	// Flags are carried unchanged for the comm layer; the transport
	// defines none.
	Flags uint8
	// Comm is the communicator the frame belongs to.
	Comm uint32
	// Source is the sending rank. Send sets it; a reader refuses a frame
	// whose Source is not the rank the connection was authenticated as.
	Source int32
	// Tag is the message tag.
	Tag int32
	// Seq is a sequence number or request id; see the kinds.
	Seq uint64
	// Aux is a kind-specific length, offset, request id or credit.
	Aux uint64
}

// AppendFrame appends the frame of h and payload to dst and returns the
// extended slice. It panics if the payload does not fit in 32 bits, which
// no validated Config allows.
func AppendFrame(dst []byte, h Header, payload []byte) []byte {
	return append(appendHeader(dst, h, len(payload)), payload...)
}

// appendHeader appends the header of a frame of h with an n-byte payload.
func appendHeader(dst []byte, h Header, n int) []byte {
	if uint64(n) > math.MaxUint32 {
		panic("tcp: AppendFrame: payload longer than 4 GiB")
	}
	dst = append(dst, Magic, Version, byte(h.Kind), h.Flags)
	dst = binary.LittleEndian.AppendUint32(dst, h.Comm)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.Source))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.Tag))
	dst = binary.LittleEndian.AppendUint64(dst, h.Seq)
	dst = binary.LittleEndian.AppendUint64(dst, h.Aux)
	return binary.LittleEndian.AppendUint32(dst, uint32(n))
}

// parseHeader checks the fixed header b and returns it with the payload
// length it announces. It checks neither the length's bound nor the
// Source, which depend on the reader.
func parseHeader(b *[HeaderSize]byte) (Header, uint32, error) {
	if err := checkPrefix(b[0], b[1]); err != nil {
		return Header{}, 0, err
	}
	h := Header{
		Kind:   Kind(b[2]),
		Flags:  b[3],
		Comm:   binary.LittleEndian.Uint32(b[4:]),
		Source: int32(binary.LittleEndian.Uint32(b[8:])),
		Tag:    int32(binary.LittleEndian.Uint32(b[12:])),
		Seq:    binary.LittleEndian.Uint64(b[16:]),
		Aux:    binary.LittleEndian.Uint64(b[24:]),
	}
	if !h.Kind.valid() {
		return Header{}, 0, fmt.Errorf("%w: unknown kind %d", ErrMalformed, b[2])
	}
	return h, binary.LittleEndian.Uint32(b[32:]), nil
}

// checkPrefix checks a frame's first two bytes.
func checkPrefix(magic, version byte) error {
	if magic != Magic {
		return fmt.Errorf("%w: magic byte 0x%02x, want 0x%02x (not a Plexus peer?)", ErrMalformed, magic, Magic)
	}
	if version != Version {
		return fmt.Errorf("%w: protocol version %d, this build speaks %d", ErrMalformed, version, Version)
	}
	return nil
}
