package group

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/plexus-hpc/plexus/agree"
)

// A frame is what a Net carries: a header byte (frameDirect or
// frameTree), the origin replica (for a tree frame, the root of the tree
// it travels down), a message count, and the messages, each length-
// prefixed in agree's wire form. One frame holds every message of one
// Ready for one destination, so a burst of accepts costs one broadcast.
const (
	frameDirect = 1
	frameTree   = 2
)

// encodeFrame appends the frame of ms, sent by origin, to b.
func encodeFrame(b []byte, kind byte, origin int, ms []agree.Message) ([]byte, error) {
	b = append(b, kind)
	b = binary.AppendUvarint(b, uint64(origin))
	b = binary.AppendUvarint(b, uint64(len(ms)))
	for i := range ms {
		at := len(b)
		b = append(b, 0) // the length's first byte, most often its only one
		var err error
		if b, err = appendMessage(b, &ms[i]); err != nil {
			return nil, err
		}
		var l [binary.MaxVarintLen64]byte
		k := binary.PutUvarint(l[:], uint64(len(b)-at-1))
		if k > 1 {
			b = slices.Insert(b, at+1, l[1:k]...)
		}
		copy(b[at:], l[:k])
	}
	return b, nil
}

// frameHeader returns a frame's kind and origin and the rest of it.
func frameHeader(f []byte) (kind byte, origin int, rest []byte, err error) {
	if len(f) < 2 || (f[0] != frameDirect && f[0] != frameTree) {
		return 0, 0, nil, fmt.Errorf("%w: frame of %d bytes with a bad header", agree.ErrMessage, len(f))
	}
	o, n := binary.Uvarint(f[1:])
	if n <= 0 || o > 1<<20 {
		return 0, 0, nil, fmt.Errorf("%w: frame origin unreadable", agree.ErrMessage)
	}
	return f[0], int(o), f[1+n:], nil
}

// decodeFrame returns the messages of a frame; they do not alias f.
func decodeFrame(f []byte) ([]agree.Message, error) { return decodeFrameInto(nil, f, nil) }

// decodeFrameInto appends the messages of a frame to ms; they do not
// alias f, and small values are copied into sl (nil: each allocated).
func decodeFrameInto(ms []agree.Message, f []byte, sl *slab) ([]agree.Message, error) {
	r, err := openFrame(f)
	var m agree.Message
	for err == nil {
		var ok bool
		if ok, err = r.next(&m, sl); ok {
			ms = append(ms, m)
		} else if err == nil {
			return ms, nil
		}
	}
	return ms, err
}

// frameReader reads a frame's messages one at a time, so that a caller
// steps each as soon as it is decoded and copies none of them.
type frameReader struct {
	rest []byte
	left uint64
}

// openFrame checks a frame's header and count.
func openFrame(f []byte) (frameReader, error) {
	_, _, rest, err := frameHeader(f)
	if err != nil {
		return frameReader{}, err
	}
	count, n := binary.Uvarint(rest)
	if n <= 0 || count > uint64(len(rest)) {
		return frameReader{}, fmt.Errorf("%w: frame count unreadable in %d bytes", agree.ErrMessage, len(rest))
	}
	return frameReader{rest: rest[n:], left: count}, nil
}

// next decodes the next message into m (overwriting it) and reports
// whether there was one; after an error the reader stays at it. The
// message does not alias the frame, and small values are copied into
// sl (nil: each allocated).
func (r *frameReader) next(m *agree.Message, sl *slab) (bool, error) {
	if r.left == 0 {
		return false, nil
	}
	l, n := binary.Uvarint(r.rest)
	if n <= 0 || l > uint64(len(r.rest)-n) {
		return false, fmt.Errorf("%w: frame message length unreadable", agree.ErrMessage)
	}
	if err := decodeInto(m, r.rest[n:n+int(l)], sl); err != nil {
		return false, err
	}
	r.rest, r.left = r.rest[n+int(l):], r.left-1
	return true, nil
}
