package am

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// A packet is a run of messages, each a header then its payload:
//
//	kind u8 | handler u32 | call u64 | length u32 | payload
//
// little-endian. Posts carry call 0; a Call's request and its reply carry
// the caller's call number.
const msgHeader = 1 + 4 + 8 + 4

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

// appendMessage appends m to packet p and returns the longer packet. It
// grows p once and writes the header in place: a busy sender appends
// every message here.
func appendMessage(p []byte, m message) []byte {
	n := len(p)
	p = slices.Grow(p, msgHeader+len(m.payload))[:n+msgHeader]
	h := p[n:]
	h[0] = byte(m.kind)
	binary.LittleEndian.PutUint32(h[1:], uint32(m.handler))
	binary.LittleEndian.PutUint64(h[5:], m.call)
	binary.LittleEndian.PutUint32(h[13:], uint32(len(m.payload)))
	return append(p, m.payload...)
}

// nextMessage decodes the first message of p and returns it with the rest
// of p. A packet cut short or with an unknown kind is an error: it came
// from the network, so it must not panic.
func nextMessage(p []byte) (message, []byte, error) {
	if len(p) < msgHeader {
		return message{}, nil, fmt.Errorf("am: packet ends inside a message header (%d bytes left)", len(p))
	}
	m := message{
		kind:    kind(p[0]),
		handler: ID(binary.LittleEndian.Uint32(p[1:])),
		call:    binary.LittleEndian.Uint64(p[5:]),
	}
	if m.kind < kindPost || m.kind > kindRelay {
		return message{}, nil, fmt.Errorf("am: message of unknown kind %d", m.kind)
	}
	n := binary.LittleEndian.Uint32(p[13:])
	p = p[msgHeader:]
	if uint64(n) > uint64(len(p)) {
		return message{}, nil, fmt.Errorf("am: message payload of %d bytes, %d left in the packet", n, len(p))
	}
	m.payload = p[:n:n]
	return m, p[n:], nil
}

// skipRequests returns the length of the run of whole requests (Posts and
// Calls) that p starts with, reading only each header's kind and length:
// what a receiver needs to know to pass them on to their handlers.
func skipRequests(p []byte) int {
	i := 0
	for len(p)-i >= msgHeader {
		if k := kind(p[i]); k != kindPost && k != kindCall {
			break
		}
		n := binary.LittleEndian.Uint32(p[i+13:])
		if uint64(n) > uint64(len(p)-i-msgHeader) {
			break
		}
		i += msgHeader + int(n)
	}
	return i
}

// appendRelay appends m from src to dest in a relay envelope.
func appendRelay(p []byte, src, dest int, m message) []byte {
	p = append(p, byte(kindRelay))
	p = binary.LittleEndian.AppendUint32(p, 0)
	p = binary.LittleEndian.AppendUint64(p, uint64(src)<<32|uint64(dest))
	p = binary.LittleEndian.AppendUint32(p, uint32(msgHeader+len(m.payload)))
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
