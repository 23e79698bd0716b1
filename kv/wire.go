package kv

import (
	"encoding/binary"
	"fmt"

	"github.com/plexus-hpc/plexus/internal/wire"
)

// Op is what a request asks.
type Op uint8

// The operations.
const (
	// OpGet reads a key at the replica, from its applied state.
	OpGet Op = 1 + iota
	// OpSet writes a key through agreement and returns the value it
	// replaced.
	OpSet
	// OpStop asks a replica to stop serving (the end of a benchmark job).
	OpStop
)

func (o Op) String() string {
	switch o {
	case OpGet:
		return "Get"
	case OpSet:
		return "Set"
	case OpStop:
		return "Stop"
	}
	return fmt.Sprintf("Op(%d)", o)
}

// Request is a client's request. Client and Seq name it uniquely: a Set
// sent again (to another replica, after a failure) is applied once.
// MinSlot is the highest slot the client has seen: a replica answers a
// Get only once it has applied that far, so that a client never reads
// older state than it saw, even across replicas.
type Request struct {
	Op       Op
	Client   uint64
	Seq      uint64
	MinSlot  uint64
	ReplyTag int
	Key      []byte
	Value    []byte
}

// Response answers a Request: Value is the value read (Get) or replaced
// (Set), nil when the key had none; Slot is the slot of the Set, or the
// replica's applied slot for a Get.
type Response struct {
	Client uint64
	Seq    uint64
	Slot   uint64
	Value  []byte
}

// command is the agreed form of a Set: its client, sequence number, key
// and value. Its bytes are unique per (client, seq).
func appendCommand(b []byte, r Request) []byte {
	b = binary.AppendUvarint(b, r.Client)
	b = binary.AppendUvarint(b, r.Seq)
	b = wire.AppendBytes(b, r.Key)
	return wire.AppendBytes(b, r.Value)
}

// AppendBinary appends r's wire form to b.
func (r Request) AppendBinary(b []byte) ([]byte, error) {
	if r.Op < OpGet || r.Op > OpStop {
		return b, fmt.Errorf("%w: op %d", ErrBadMessage, r.Op)
	}
	if len(r.Key)+len(r.Value) > MaxKeyValue {
		return b, fmt.Errorf("%w: key and value of %d bytes, limit %d", ErrBadMessage, len(r.Key)+len(r.Value), MaxKeyValue)
	}
	b = append(b, byte(r.Op))
	b = binary.AppendUvarint(b, r.MinSlot)
	b = binary.AppendUvarint(b, uint64(r.ReplyTag))
	return appendCommand(b, r), nil
}

// UnmarshalBinary sets r from its wire form (copying the bytes).
func (r *Request) UnmarshalBinary(data []byte) error {
	d := wire.NewReader(data, ErrBadMessage)
	*r = Request{Op: Op(d.Byte()), MinSlot: d.Uvarint(), ReplyTag: int(d.Uvarint() & 0x7fffffff)}
	r.Client, r.Seq, r.Key, r.Value = d.Uvarint(), d.Uvarint(), d.Bytes("key"), d.Bytes("value")
	if r.Op < OpGet || r.Op > OpStop {
		d.Fail("op %d", r.Op)
	}
	return d.Done("request")
}

// AppendBinary appends r's wire form to b.
func (r Response) AppendBinary(b []byte) ([]byte, error) {
	b = binary.AppendUvarint(b, r.Client)
	b = binary.AppendUvarint(b, r.Seq)
	b = binary.AppendUvarint(b, r.Slot)
	return wire.AppendBytes(b, r.Value), nil
}

// UnmarshalBinary sets r from its wire form (copying the bytes).
func (r *Response) UnmarshalBinary(data []byte) error {
	d := wire.NewReader(data, ErrBadMessage)
	*r = Response{Client: d.Uvarint(), Seq: d.Uvarint(), Slot: d.Uvarint(), Value: d.Bytes("value")}
	return d.Done("response")
}

// decodeCommand reads a Set from its agreed bytes.
func decodeCommand(v []byte) (Request, error) {
	d := wire.NewReader(v, ErrBadMessage)
	r := Request{Op: OpSet, Client: d.Uvarint(), Seq: d.Uvarint(), Key: d.Bytes("key"), Value: d.Bytes("value")}
	return r, d.Done("command")
}
