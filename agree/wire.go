package agree

import (
	"encoding/binary"
	"math"

	"github.com/plexus-hpc/plexus/internal/wire"
)

// AppendBinary appends m's wire form to b, for drivers that carry
// messages between processes. The form is a type byte followed by
// varints and length-prefixed bytes; it distinguishes a nil Value (a
// no-op) from an empty one. A message of the normal case (no ballots,
// entries, snapshot or view) takes a shorter form.
func (m Message) AppendBinary(b []byte) ([]byte, error) {
	if m.short() {
		return m.appendShort(b), nil
	}
	b = append(b, byte(m.Type))
	for _, x := range []uint64{uint64(m.From), uint64(m.To + 1), m.Epoch, m.Slot,
		m.Ballot.Round, uint64(m.Ballot.ID), m.Voted.Round, uint64(m.Voted.ID)} {
		b = binary.AppendUvarint(b, x)
	}
	b = wire.AppendBytes(b, m.Value)
	b = appendEntries(b, m.Entries)
	b = appendSnap(b, m.Snap)
	if m.View == nil {
		return append(b, 0), nil
	}
	b = append(b, 1)
	for _, x := range []uint64{m.View.Epoch, uint64(m.View.Leader), uint64(m.View.Acceptor), m.View.Base} {
		b = binary.AppendUvarint(b, x)
	}
	b = appendSnap(b, m.View.Snap)
	return appendEntries(b, m.View.Log), nil
}

// shortForm, set in the type byte, marks the short form: From, To+1,
// Epoch and Slot as varints, then Value. Every replica decodes one or
// more such messages per decision, so their form is the one worth
// keeping small; the drivers decode it without the generic reader.
const shortForm = 0x80

// short reports whether m has a short form.
func (m Message) short() bool {
	return m.Type < shortForm && m.Ballot == (Ballot{}) && m.Voted == (Ballot{}) &&
		len(m.Entries) == 0 && m.Snap == nil && m.View == nil
}

func (m Message) appendShort(b []byte) []byte {
	b = append(b, byte(m.Type)|shortForm)
	b = binary.AppendUvarint(b, uint64(m.From))
	b = binary.AppendUvarint(b, uint64(m.To+1))
	b = binary.AppendUvarint(b, m.Epoch)
	b = binary.AppendUvarint(b, m.Slot)
	return wire.AppendBytes(b, m.Value)
}

// appendSnap appends a presence byte and, for a snapshot, its index and
// data.
func appendSnap(b []byte, s *Snapshot) []byte {
	if s == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, s.Index)
	return wire.AppendBytes(b, s.Data)
}

func appendEntries(b []byte, es []Entry) []byte {
	b = binary.AppendUvarint(b, uint64(len(es)))
	for _, e := range es {
		b = binary.AppendUvarint(b, e.Slot)
		b = wire.AppendBytes(b, e.Value)
	}
	return b
}

// UnmarshalBinary sets m from its wire form. The values are copies:
// data may be reused afterwards. Bytes that are not a message give
// ErrMessage; Node.Step checks the rest (ids within the group).
func (m *Message) UnmarshalBinary(data []byte) error {
	d := decoder{wire.NewReader(data, ErrMessage)}
	*m = Message{Type: Type(d.Byte())}
	if m.Type&shortForm != 0 {
		m.Type &^= shortForm
		m.From, m.To = d.id(d.Uvarint()), d.id(d.Uvarint())-1
		m.Epoch, m.Slot = d.Uvarint(), d.Uvarint()
		m.Value = d.value()
		return d.Done("message")
	}
	var from, to uint64
	for _, p := range []*uint64{&from, &to, &m.Epoch, &m.Slot, &m.Ballot.Round} {
		*p = d.Uvarint()
	}
	m.From, m.To = d.id(from), d.id(to)-1
	m.Ballot.ID = d.id(d.Uvarint())
	m.Voted.Round = d.Uvarint()
	m.Voted.ID = d.id(d.Uvarint())
	m.Value = d.value()
	m.Entries = d.entries()
	m.Snap = d.snap()
	if d.Byte() == 1 {
		v := &View{Epoch: d.Uvarint(), Leader: d.id(d.Uvarint()), Acceptor: d.id(d.Uvarint()), Base: d.Uvarint()}
		v.Snap = d.snap()
		v.Log = d.entries()
		m.View = v
	}
	return d.Done("message")
}

// decoder reads a message; its first error sticks and later reads
// return zeros.
type decoder struct{ wire.Reader }

func (d *decoder) id(x uint64) int {
	if x > math.MaxInt32 {
		d.Fail("replica id %d out of range", x)
		return 0
	}
	return int(x)
}

func (d *decoder) value() []byte { return d.Bytes("value") }

func (d *decoder) snap() *Snapshot {
	if d.Byte() != 1 {
		return nil
	}
	s := &Snapshot{Index: d.Uvarint(), Data: d.Bytes("snapshot")}
	if s.Data == nil {
		s.Data = []byte{}
	}
	return s
}

func (d *decoder) entries() []Entry {
	n := d.Uvarint()
	if n > uint64(d.Len()) { // every entry takes at least two bytes
		d.Fail("%d entries with %d bytes left", n, d.Len())
		return nil
	}
	var es []Entry
	for range n {
		es = append(es, Entry{Slot: d.Uvarint(), Value: d.value()})
	}
	return es
}
