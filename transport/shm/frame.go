package shm

import (
	"encoding/binary"
	"fmt"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// An Endpoint carries frame.Headers of the comm layer's kinds only,
// frame.Eager to frame.Credit: the shared-memory transport needs no control
// frames of its own (liveness lives in the segment). Send sets Source, and
// the receiver checks it against the ring the frame came on.
//
// A frame is one ring message of a header and the payload's first bytes,
// then as many ring messages as the rest needs, each of exactly
// min(ring MaxMessage, bytes left) payload bytes with no header: the ring
// is a byte pipe between one sender and one receiver, and the sender holds
// the ring's lock for the whole frame. A ring message may also carry
// several whole frames back to back (a bundle), the last of which may be
// the start of a frame that continues as above: the receiver reads
// frames from a ring message until it ends. A bulk frame (bulk.go) is a
// header alone, whose payload lies in the pair's bulk buffer.
//
// The header comes in two forms (docs/shm-format.md). The full one, of
// headerSize bytes, carries every field. The short one, of shortSize
// bytes, is for the frames whose Seq is 0 and whose Aux is the payload's
// length, as an eager message's are: it leaves out Seq, Aux and Source
// (the ring's sender), so that 40 payload bytes, not 20, fit one slot.
const (
	frameMark  = 0xA7
	shortMark  = 0xA8
	headerSize = 36
	shortSize  = 16
)

// headerLen returns the size of the header putHeader writes for h and a
// payload of n bytes.
func headerLen(h frame.Header, n int) int {
	if h.Seq == 0 && h.Aux == uint64(n) {
		return shortSize
	}
	return headerSize
}

// putHeader writes h and the payload length n into b[:headerLen(h, n)]
// and returns that length. The send paths choose between putShort and putFull themselves, so that
// both are inlined there: putHeader is too big to inline, and a call that
// passes h on costs small-message latency (docs/benchmarks.md, "Short
// frame header" in section "Shared memory: a leaner receive path",
// 2026-11-22).
func putHeader(b []byte, h frame.Header, n int) int {
	if headerLen(h, n) == shortSize {
		putShort(b, h, n)
		return shortSize
	}
	putFull(b, h, n)
	return headerSize
}

// putShort writes the short header of h and the payload length n.
func putShort(b []byte, h frame.Header, n int) {
	putShortFields(b, h.Kind, h.Flags, h.Comm, h.Tag, n)
}

// putShortFields writes a short header from its fields: the one encoder
// behind putShort and putEagerShort.
func putShortFields(b []byte, kind frame.Kind, flags byte, comm uint32, tag int32, n int) {
	b = b[:shortSize]
	b[0], b[1], b[2], b[3] = shortMark, byte(kind), flags, 0
	binary.LittleEndian.PutUint32(b[4:], comm)
	binary.LittleEndian.PutUint32(b[8:], uint32(tag))
	binary.LittleEndian.PutUint32(b[12:], uint32(n))
}

// putEagerShort writes the short header of an eager frame of communicator
// comm with tag and a payload of n bytes, from the fields.
func putEagerShort(b []byte, comm uint32, tag int32, n int) {
	putShortFields(b, frame.Eager, 0, comm, tag, n)
}

// eagerHeader is the Header SendEager and QueueEager stand for.
func eagerHeader(comm uint32, tag int32, n int) frame.Header {
	return frame.Header{Kind: frame.Eager, Comm: comm, Tag: tag, Aux: uint64(n)}
}

// putFull writes the full header of h and the payload length n.
func putFull(b []byte, h frame.Header, n int) {
	b = b[:headerSize]
	b[0], b[1], b[2], b[3] = frameMark, byte(h.Kind), h.Flags, 0
	binary.LittleEndian.PutUint32(b[4:], h.Comm)
	binary.LittleEndian.PutUint32(b[8:], uint32(h.Source))
	binary.LittleEndian.PutUint32(b[12:], uint32(h.Tag))
	binary.LittleEndian.PutUint64(b[16:], h.Seq)
	binary.LittleEndian.PutUint64(b[24:], h.Aux)
	binary.LittleEndian.PutUint32(b[32:], uint32(n))
}

// parseHeader reads the header at the start of a frame's first ring
// message, which came on the ring from src, and returns it with the
// payload length it announces and its own length.
func parseHeader(b []byte, src int) (h frame.Header, total, size int, err error) {
	switch {
	case len(b) >= shortSize && b[0] == shortMark:
		total = int(binary.LittleEndian.Uint32(b[12:]))
		h = frame.Header{
			Kind: frame.Kind(b[1]), Flags: b[2],
			Comm:   binary.LittleEndian.Uint32(b[4:]),
			Source: int32(src),
			Tag:    int32(binary.LittleEndian.Uint32(b[8:])),
			Aux:    uint64(total),
		}
		size = shortSize
	case len(b) >= headerSize && b[0] == frameMark:
		h = frame.Header{
			Kind: frame.Kind(b[1]), Flags: b[2],
			Comm:   binary.LittleEndian.Uint32(b[4:]),
			Source: int32(binary.LittleEndian.Uint32(b[8:])),
			Tag:    int32(binary.LittleEndian.Uint32(b[12:])),
			Seq:    binary.LittleEndian.Uint64(b[16:]),
			Aux:    binary.LittleEndian.Uint64(b[24:]),
		}
		total, size = int(binary.LittleEndian.Uint32(b[32:])), headerSize
	default:
		return frame.Header{}, 0, 0, fmt.Errorf("shm: malformed frame: %d-byte first message, mark %#x", len(b), first(b))
	}
	if !h.Kind.User() {
		return frame.Header{}, 0, 0, fmt.Errorf("shm: malformed frame: unknown kind %d", b[1])
	}
	return h, total, size, nil
}

func first(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
