package tcp

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// Wire constants (docs/wire-format.md). Every frame is a fixed header of
// headerSize bytes, of which this file is the one encoder and decoder, and
// its payload; the header carries a frame.Header and the payload length.
const (
	// wireMagic is the first byte of every frame; it lets a reader tell a
	// Plexus peer from a stranger speaking another protocol at once.
	wireMagic = 0xA7
	// wireVersion is the second byte of every frame. A peer speaking
	// another version is refused during the handshake.
	wireVersion = 1
	// headerSize is the length of the fixed header that precedes every
	// payload.
	headerSize = 36
)

// appendFrame appends the frame of h and payload to dst and returns the
// extended slice. It panics if the payload does not fit in 32 bits, which
// no validated Config allows.
func appendFrame(dst []byte, h frame.Header, payload []byte) []byte {
	return append(appendHeader(dst, h, len(payload)), payload...)
}

// appendHeader appends the header of a frame of h with an n-byte payload.
func appendHeader(dst []byte, h frame.Header, n int) []byte {
	if uint64(n) > math.MaxUint32 {
		panic("tcp: appendFrame: payload longer than 4 GiB")
	}
	dst = append(dst, wireMagic, wireVersion, byte(h.Kind), h.Flags)
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
func parseHeader(b *[headerSize]byte) (frame.Header, uint32, error) {
	if err := checkPrefix(b[0], b[1]); err != nil {
		return frame.Header{}, 0, err
	}
	h := frame.Header{
		Kind:   frame.Kind(b[2]),
		Flags:  b[3],
		Comm:   binary.LittleEndian.Uint32(b[4:]),
		Source: int32(binary.LittleEndian.Uint32(b[8:])),
		Tag:    int32(binary.LittleEndian.Uint32(b[12:])),
		Seq:    binary.LittleEndian.Uint64(b[16:]),
		Aux:    binary.LittleEndian.Uint64(b[24:]),
	}
	if !h.Kind.Valid() {
		return frame.Header{}, 0, fmt.Errorf("%w: unknown kind %d", ErrMalformed, b[2])
	}
	return h, binary.LittleEndian.Uint32(b[32:]), nil
}

// checkPrefix checks a frame's first two bytes.
func checkPrefix(magic, version byte) error {
	if magic != wireMagic {
		return fmt.Errorf("%w: magic byte 0x%02x, want 0x%02x (not a Plexus peer?)", ErrMalformed, magic, wireMagic)
	}
	if version != wireVersion {
		return fmt.Errorf("%w: protocol version %d, this build speaks %d", ErrMalformed, version, wireVersion)
	}
	return nil
}
