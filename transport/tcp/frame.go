package tcp

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/plexus-hpc/plexus/transport/frame"
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

// Kind says what a frame is for; see package frame.
type Kind = frame.Kind

// Frame kinds, package frame's under this package's names. Eager to Credit
// carry the comm layer's traffic and are all Send accepts; Hello to Ping
// belong to the transport itself (docs/wire-format.md).
const (
	Eager  = frame.Eager
	RTS    = frame.RTS
	CTS    = frame.CTS
	Data   = frame.Data
	Credit = frame.Credit
	Hello  = frame.Hello
	Auth   = frame.Auth
	Bye    = frame.Bye
	Ping   = frame.Ping
)

// Header is a frame's fixed header (package frame's) without the
// wire-only fields: magic, version and payload length, which AppendFrame
// derives.
type Header = frame.Header

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
	if !h.Kind.Valid() {
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
