package agree

import (
	"encoding/binary"
	"fmt"
	"math"
)

// AppendBinary appends m's wire form to b, for drivers that carry
// messages between processes. The form is a type byte followed by
// varints and length-prefixed bytes; it distinguishes a nil Value (a
// no-op) from an empty one.
func (m Message) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, byte(m.Type))
	for _, x := range []uint64{uint64(m.From), uint64(m.To + 1), m.Epoch, m.Slot,
		m.Ballot.Round, uint64(m.Ballot.ID), m.Voted.Round, uint64(m.Voted.ID)} {
		b = binary.AppendUvarint(b, x)
	}
	b = appendValue(b, m.Value)
	b = appendEntries(b, m.Entries)
	if m.View == nil {
		return append(b, 0), nil
	}
	b = append(b, 1)
	for _, x := range []uint64{m.View.Epoch, uint64(m.View.Leader), uint64(m.View.Acceptor), m.View.Base} {
		b = binary.AppendUvarint(b, x)
	}
	return appendEntries(b, m.View.Log), nil
}

func appendValue(b, v []byte) []byte {
	if v == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(v))+1)
	return append(b, v...)
}

func appendEntries(b []byte, es []Entry) []byte {
	b = binary.AppendUvarint(b, uint64(len(es)))
	for _, e := range es {
		b = binary.AppendUvarint(b, e.Slot)
		b = appendValue(b, e.Value)
	}
	return b
}

// UnmarshalBinary sets m from its wire form. The values are copies:
// data may be reused afterwards. Bytes that are not a message give
// ErrMessage; Node.Step checks the rest (ids within the group).
func (m *Message) UnmarshalBinary(data []byte) error {
	d := decoder{b: data}
	*m = Message{Type: Type(d.byte())}
	var from, to uint64
	for _, p := range []*uint64{&from, &to, &m.Epoch, &m.Slot, &m.Ballot.Round} {
		*p = d.uvarint()
	}
	m.From, m.To = d.id(from), d.id(to)-1
	m.Ballot.ID = d.id(d.uvarint())
	m.Voted.Round = d.uvarint()
	m.Voted.ID = d.id(d.uvarint())
	m.Value = d.value()
	m.Entries = d.entries()
	if d.byte() == 1 {
		v := &View{Epoch: d.uvarint(), Leader: d.id(d.uvarint()), Acceptor: d.id(d.uvarint()), Base: d.uvarint()}
		v.Log = d.entries()
		m.View = v
	}
	if d.err == nil && len(d.b) > 0 {
		d.fail("%d bytes after the message", len(d.b))
	}
	return d.err
}

// decoder reads a message; its first error sticks and later reads
// return zeros.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrMessage, fmt.Sprintf(format, args...))
	}
	d.b = nil
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) id(x uint64) int {
	if x > math.MaxInt32 {
		d.fail("replica id %d out of range", x)
		return 0
	}
	return int(x)
}

func (d *decoder) value() []byte {
	n := d.uvarint()
	if n == 0 {
		return nil
	}
	if n-1 > uint64(len(d.b)) {
		d.fail("value of %d bytes with %d left", n-1, len(d.b))
		return nil
	}
	v := append([]byte{}, d.b[:n-1]...)
	d.b = d.b[n-1:]
	return v
}

func (d *decoder) entries() []Entry {
	n := d.uvarint()
	if n > uint64(len(d.b)) { // every entry takes at least two bytes
		d.fail("%d entries with %d bytes left", n, len(d.b))
		return nil
	}
	var es []Entry
	for range n {
		es = append(es, Entry{Slot: d.uvarint(), Value: d.value()})
	}
	return es
}
