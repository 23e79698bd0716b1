// Package wire holds the pieces of the varint wire forms that agree and
// kv both use: byte strings that tell nil from empty, and a Reader whose
// first error sticks, so that a decoder reads every field and checks
// once at the end.
//
// Usage:
//
//	b = binary.AppendUvarint(b, seq)
//	b = wire.AppendBytes(b, value)
//	...
//	r := wire.NewReader(b, ErrBadMessage)
//	seq, value := r.Uvarint(), r.Bytes()
//	err := r.Done("request") // wraps ErrBadMessage if b was not one
package wire

import (
	"encoding/binary"
	"fmt"
)

// AppendBytes appends v to b as a varint of its length plus one and its
// bytes; a nil v is a single 0, so that a reader tells nil from empty.
func AppendBytes(b, v []byte) []byte {
	if v == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(v))+1)
	return append(b, v...)
}

// Reader reads bytes, varints and byte strings from a message; its first
// error sticks and later reads return zeros. A Reader is used by one
// goroutine.
type Reader struct {
	b   []byte
	err error
	bad error
}

// NewReader returns a Reader of b whose errors wrap bad, the caller's
// sentinel for bytes that are not a message.
func NewReader(b []byte, bad error) Reader { return Reader{b: b, bad: bad} }

// Fail records that the message is bad, saying why, if nothing was
// recorded before, and drops what is left.
func (r *Reader) Fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", r.bad, fmt.Sprintf(format, args...))
	}
	r.b = nil
}

// Len returns how many bytes are left.
func (r *Reader) Len() int { return len(r.b) }

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if len(r.b) == 0 {
		r.Fail("truncated")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	x, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.Fail("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return x
}

// Bytes reads a byte string that AppendBytes wrote, as a copy: the
// message may be reused afterwards. what names it in an error.
func (r *Reader) Bytes(what string) []byte {
	n := r.Uvarint()
	if n == 0 {
		return nil
	}
	if n-1 > uint64(len(r.b)) {
		r.Fail("%s of %d bytes with %d left", what, n-1, len(r.b))
		return nil
	}
	v := append([]byte{}, r.b[:n-1]...)
	r.b = r.b[n-1:]
	return v
}

// Done returns the first error, or one if bytes are left after the
// message, which what names.
func (r *Reader) Done(what string) error {
	if r.err == nil && len(r.b) > 0 {
		r.Fail("%d bytes after the %s", len(r.b), what)
	}
	return r.err
}
