package am

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// A packet is a run of messages, each a header then its payload:
//
//	kind u8 | handler uvarint | call uvarint | length uvarint | payload
//
// where a Post has no call field; a Call's request and its reply carry
// the caller's call number. Varints (encoding/binary's) keep the header
// of a Post with a small handler ID and payload at 3 bytes: the bytes of
// a packet are copied several times on their way (into the packet, the
// transport's buffers, the kernel's), so a 32-byte Post under a 17-byte
// header of fixed fields cost a third more of every copy.
const maxHeader = 1 + binary.MaxVarintLen32 + binary.MaxVarintLen64 + binary.MaxVarintLen32

// After its messages a packet has one byte of flags, its trailer. With
// flagOther clear the packet holds only requests (Posts and Calls), and
// the receiver queues it for its handlers without looking inside: the
// handlers' loop is then the only pass over a busy stream's messages.
// A trailer, not a header, so that the packet without it keeps its
// buffer's capacity, which is how buffers are recycled.
const (
	trailerLen      = 1
	flagOther  byte = 1 // the packet holds a reply or an envelope
)

// kind says what a message is.
type kind uint8

const (
	kindPost     kind = 1 + iota // run the handler, no reply
	kindCall                     // run the handler, reply with its result
	kindReply                    // a Call's result
	kindReplyErr                 // a Call's handler error, as text
	kindRelay                    // an envelope: call is src<<32|dest, payload one inner message
)

// isReply reports whether k completes a Call.
func (k kind) isReply() bool { return k == kindReply || k == kindReplyErr }

// message is one decoded message; payload aliases the packet.
type message struct {
	kind    kind
	handler ID
	call    uint64
	payload []byte
}

// appendMessage appends m to packet p and returns the longer packet. A
// busy sender appends every message here: a small Post takes a path
// short enough to inline.
func appendMessage(p []byte, m message) []byte {
	if m.kind == kindPost && m.handler < 0x80 && len(m.payload) < 0x80 {
		return append(append(p, byte(kindPost), byte(m.handler), byte(len(m.payload))), m.payload...)
	}
	return appendLong(p, m)
}

// appendLong is appendMessage for any message; it grows p once.
func appendLong(p []byte, m message) []byte {
	p = slices.Grow(p, maxHeader+len(m.payload))
	p = append(p, byte(m.kind))
	p = appendUvarint(p, uint64(m.handler))
	if m.kind != kindPost {
		p = appendUvarint(p, m.call)
	}
	p = appendUvarint(p, uint64(len(m.payload)))
	return append(p, m.payload...)
}

// appendUvarint is binary.AppendUvarint with the one-byte case inline.
func appendUvarint(p []byte, v uint64) []byte {
	if v < 0x80 {
		return append(p, byte(v))
	}
	return binary.AppendUvarint(p, v)
}

// headerLen is the length of m's header.
func headerLen(m message) int {
	n := 1 + uvarintLen(uint64(m.handler)) + uvarintLen(uint64(len(m.payload)))
	if m.kind != kindPost {
		n += uvarintLen(m.call)
	}
	return n
}

// uvarintLen is the length of v as a varint.
func uvarintLen(v uint64) int { return max(1, (bits.Len64(v)+6)/7) }

// uvarint decodes the varint at p[i:] and returns it with the index after
// it; the index is -1 when p ends inside it or it overflows 64 bits.
func uvarint(p []byte, i int) (uint64, int) {
	if i < len(p) && p[i] < 0x80 {
		return uint64(p[i]), i + 1
	}
	if i >= len(p) {
		return 0, -1
	}
	v, n := binary.Uvarint(p[i:])
	if n <= 0 {
		return 0, -1
	}
	return v, i + n
}

// header decodes the header of the message at the start of p: its kind,
// handler, call number (0 for a Post), and where its payload starts and
// ends in p. ok is false, and the rest meaningless, when p ends inside the
// message, a field overflows, or the kind is unknown: packets come from
// the network, so this must not panic. headerError says which.
func header(p []byte) (k kind, h ID, call uint64, start, end int, ok bool) {
	if len(p) >= 3 && p[0] == byte(kindPost) && p[1] < 0x80 && p[2] < 0x80 {
		if end = 3 + int(p[2]); end <= len(p) { // a small Post, the common case
			return kindPost, ID(p[1]), 0, 3, end, true
		}
		return
	}
	if len(p) == 0 {
		return
	}
	if k = kind(p[0]); k < kindPost || k > kindRelay {
		return
	}
	hv, i := uvarint(p, 1)
	if i < 0 || hv > math.MaxUint32 {
		return
	}
	if k != kindPost {
		if call, i = uvarint(p, i); i < 0 {
			return
		}
	}
	n, i := uvarint(p, i)
	if i < 0 || n > uint64(len(p)-i) {
		return
	}
	return k, ID(hv), call, i, i + int(n), true
}

// headerError says what is wrong with the message at the start of p,
// which header refused.
func headerError(p []byte) error {
	if len(p) == 0 {
		return errors.New("am: empty message")
	}
	k := kind(p[0])
	if k < kindPost || k > kindRelay {
		return fmt.Errorf("am: message of unknown kind %d", k)
	}
	hv, i := uvarint(p, 1)
	if i > 0 && hv > math.MaxUint32 {
		return fmt.Errorf("am: handler ID %d beyond 32 bits", hv)
	}
	if i > 0 && k != kindPost {
		_, i = uvarint(p, i)
	}
	var n uint64
	if i > 0 {
		n, i = uvarint(p, i)
	}
	if i < 0 {
		return fmt.Errorf("am: packet ends inside a message header, or a field overflows (%d bytes left)", len(p))
	}
	return fmt.Errorf("am: message payload of %d bytes, %d left in the packet", n, len(p)-i)
}

// nextMessage decodes the first message of p and returns it with the rest of p. A message cut short, with an overlong
// field or an unknown kind is an error.
func nextMessage(p []byte) (message, []byte, error) {
	k, h, call, start, end, ok := header(p)
	if !ok {
		return message{}, nil, headerError(p)
	}
	return message{kind: k, handler: h, call: call, payload: p[start:end:end]}, p[end:], nil
}

// skipRequests returns the length of the run of whole requests (Posts and
// Calls) that p starts with: what a receiver needs to know to pass them
// on to their handlers.
func skipRequests(p []byte) int {
	i := 0
	for i < len(p) {
		k, _, _, _, end, ok := header(p[i:])
		if !ok || (k != kindPost && k != kindCall) {
			break
		}
		i += end
	}
	return i
}

// appendRelay appends m from src to dest in a relay envelope.
func appendRelay(p []byte, src, dest int, m message) []byte {
	inner := headerLen(m) + len(m.payload)
	p = slices.Grow(p, maxHeader+inner)
	p = append(p, byte(kindRelay))
	p = appendUvarint(p, 0)
	p = appendUvarint(p, uint64(src)<<32|uint64(dest))
	p = appendUvarint(p, uint64(inner))
	return appendMessage(p, m)
}

// unwrap decodes envelope m: the original source, the final destination
// and the inner message, which must be one message and no envelope.
func unwrap(m message, size int) (src, dest int, inner message, err error) {
	src, dest = int(m.call>>32), int(uint32(m.call))
	if src >= size || dest >= size {
		return 0, 0, message{}, fmt.Errorf("am: envelope from rank %d to rank %d, world of %d", src, dest, size)
	}
	inner, rest, err := nextMessage(m.payload)
	switch {
	case err != nil:
		return 0, 0, message{}, err
	case len(rest) > 0 || inner.kind == kindRelay:
		return 0, 0, message{}, fmt.Errorf("am: envelope from rank %d holds %d stray bytes or a nested envelope", src, len(rest))
	}
	return src, dest, inner, nil
}
