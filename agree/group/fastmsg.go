package group

import (
	"encoding/binary"
	"math"

	"github.com/plexus-hpc/plexus/agree"
	"github.com/plexus-hpc/plexus/internal/wire"
)

// decodeMessage is agree.Message.UnmarshalBinary with a fast path for
// the messages of the normal case, which agree writes in a short form:
// numbers and a value, without ballots, entries, snapshot or view (a
// Forward, a Propose, an Accept, a Heartbeat). Every replica decodes
// one or more of those per decision, and the generic reader spends
// about as much on its bookkeeping as on the bytes. Anything else, or
// anything the fast path cannot read, goes to UnmarshalBinary, which
// gives the same message or reports the error: the two agree on every
// input (TestDecodeMessageTwin). The fast path copies the value into sl
// (see slab), or allocates it when sl is nil.
func decodeMessage(b []byte, sl *slab) (agree.Message, error) {
	var m agree.Message
	err := decodeInto(&m, b, sl)
	return m, err
}

// decodeInto is decodeMessage into m, which it overwrites: a caller
// that steps each message in turn decodes them all into one variable.
func decodeInto(m *agree.Message, b []byte, sl *slab) error {
	if decodeSimple(m, b, sl) {
		return nil
	}
	return m.UnmarshalBinary(b)
}

// shortForm marks agree's short form in a message's type byte: From,
// To+1, Epoch and Slot as varints, then the value (agree's wire.go).
const shortForm = 0x80

// decodeSimple reads a message in the short form into m and reports
// whether b was one (m is left alone if not); the value is a copy, from
// sl.
func decodeSimple(m *agree.Message, b []byte, sl *slab) bool {
	if len(b) < 1+4+1 || b[0]&shortForm == 0 {
		return false
	}
	t := agree.Type(b[0] &^ shortForm)
	var x [4]uint64 // from, to+1, epoch, slot
	b = b[1:]
	for i := range x {
		v, n := uvarint(b)
		if n <= 0 {
			return false
		}
		x[i], b = v, b[n:]
	}
	if x[0] > math.MaxInt32 || x[1] > math.MaxInt32 {
		return false
	}
	v, rest, ok := simpleValue(b, sl)
	if !ok || len(rest) != 0 {
		return false
	}
	*m = agree.Message{Type: t, From: int(x[0]), To: int(x[1]) - 1, Epoch: x[2], Slot: x[3], Value: v}
	return true
}

// simpleValue reads a byte string as wire.AppendBytes writes it (its
// length plus one, zero for nil) and returns a copy, from sl, and what
// follows.
func simpleValue(b []byte, sl *slab) (v, rest []byte, ok bool) {
	l, n := uvarint(b)
	if n <= 0 {
		return nil, nil, false
	}
	b = b[n:]
	if l == 0 {
		return nil, b, true
	}
	if l-1 > uint64(len(b)) {
		return nil, nil, false
	}
	return sl.copy(b[:l-1]), b[l-1:], true
}

// slab copies small values into shared blocks: one allocation per
// block instead of one per value, on the path every decision takes at
// every replica. A value keeps its whole block alive as long as it is
// referenced (at most slabBlock bytes, and the protocol drops its
// references at compaction); each copy's capacity ends with it, so an
// append to one never writes over the next. A nil slab allocates each
// copy. A slab is used by one goroutine (a team member's).
type slab struct{ block []byte }

const (
	slabBlock = 1024 // bytes per block
	slabMax   = 64   // longer values get their own allocation
)

func (s *slab) copy(v []byte) []byte {
	if s == nil || len(v) == 0 || len(v) > slabMax {
		return append([]byte{}, v...) // never nil: a nil value is a no-op
	}
	if len(v) > cap(s.block)-len(s.block) {
		s.block = make([]byte, 0, slabBlock)
	}
	n := len(s.block)
	s.block = append(s.block, v...)
	return s.block[n:len(s.block):len(s.block)]
}

// uvarint is binary.Uvarint with the one-byte case (ids, small epochs,
// values' lengths: most numbers of the normal case) inline.
func uvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return binary.Uvarint(b)
}

// appendMessage is agree.Message.AppendBinary with the short form of the
// normal case written here, from a pointer: the same bytes
// (TestAppendMessageTwin) without copying the message twice per call.
func appendMessage(b []byte, m *agree.Message) ([]byte, error) {
	if m.Type >= shortForm || m.Ballot != (agree.Ballot{}) || m.Voted != (agree.Ballot{}) ||
		len(m.Entries) != 0 || m.Snap != nil || m.View != nil {
		return m.AppendBinary(b)
	}
	b = append(b, byte(m.Type)|shortForm)
	b = binary.AppendUvarint(b, uint64(m.From))
	b = binary.AppendUvarint(b, uint64(m.To+1))
	b = binary.AppendUvarint(b, m.Epoch)
	b = binary.AppendUvarint(b, m.Slot)
	return wire.AppendBytes(b, m.Value), nil
}
