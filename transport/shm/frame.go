package shm

import (
	"encoding/binary"
	"fmt"
)

// Kind says what a frame is for; the values match package tcp's and
// comm's, so adapters convert by number.
type Kind uint8

// Frame kinds, all the caller's: the shared-memory transport needs no
// control frames of its own (liveness lives in the segment).
const (
	// Eager carries a whole message.
	Eager Kind = 1 + iota
	// RTS asks the receiver to accept a rendezvous message.
	RTS
	// CTS answers an RTS.
	CTS
	// Data is one chunk of a rendezvous payload.
	Data
	// Credit returns flow-control credit to the sender.
	Credit
	lastKind = Credit
)

var kindNames = [...]string{"", "Eager", "RTS", "CTS", "Data", "Credit"}

// String returns the kind's name, or "Kind(n)" for an unknown kind.
func (k Kind) String() string {
	if k.valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

func (k Kind) valid() bool { return k >= Eager && k <= lastKind }

// Header is a frame's fixed header, as in package tcp.
type Header struct {
	Kind  Kind
	Flags uint8
	Comm  uint32
	// Source is the sending rank; Send sets it and the receiver checks it
	// against the ring the frame came on.
	Source int32
	Tag    int32
	Seq    uint64
	Aux    uint64
}

// A frame is one ring message of headerSize bytes and the payload's first
// bytes, then as many ring messages as the rest needs, each of exactly
// min(ring MaxMessage, bytes left) payload bytes with no header: the ring
// is a byte pipe between one sender and one receiver, and the sender holds
// the ring's lock for the whole frame.
const (
	frameMark  = 0xA7
	headerSize = 36
)

// putHeader writes h and the payload length n into b[:headerSize].
func putHeader(b []byte, h Header, n int) {
	b[0], b[1], b[2], b[3] = frameMark, byte(h.Kind), h.Flags, 0
	binary.LittleEndian.PutUint32(b[4:], h.Comm)
	binary.LittleEndian.PutUint32(b[8:], uint32(h.Source))
	binary.LittleEndian.PutUint32(b[12:], uint32(h.Tag))
	binary.LittleEndian.PutUint64(b[16:], h.Seq)
	binary.LittleEndian.PutUint64(b[24:], h.Aux)
	binary.LittleEndian.PutUint32(b[32:], uint32(n))
}

// parseHeader reads the header at the start of a frame's first ring
// message and returns it with the payload length it announces.
func parseHeader(b []byte) (Header, int, error) {
	if len(b) < headerSize || b[0] != frameMark {
		return Header{}, 0, fmt.Errorf("shm: malformed frame: %d-byte first message, mark %#x", len(b), first(b))
	}
	h := Header{
		Kind: Kind(b[1]), Flags: b[2],
		Comm:   binary.LittleEndian.Uint32(b[4:]),
		Source: int32(binary.LittleEndian.Uint32(b[8:])),
		Tag:    int32(binary.LittleEndian.Uint32(b[12:])),
		Seq:    binary.LittleEndian.Uint64(b[16:]),
		Aux:    binary.LittleEndian.Uint64(b[24:]),
	}
	if !h.Kind.valid() {
		return Header{}, 0, fmt.Errorf("shm: malformed frame: unknown kind %d", b[1])
	}
	return h, int(binary.LittleEndian.Uint32(b[32:])), nil
}

func first(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
