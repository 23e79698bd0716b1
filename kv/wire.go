package kv

import (
	"encoding/binary"
	"fmt"
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
	b = appendBytes(b, r.Key)
	return appendBytes(b, r.Value)
}

func appendBytes(b, v []byte) []byte {
	if v == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(v))+1)
	return append(b, v...)
}

// AppendBinary appends r's wire form to b.
func (r Request) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, byte(r.Op))
	b = binary.AppendUvarint(b, r.MinSlot)
	b = binary.AppendUvarint(b, uint64(r.ReplyTag))
	return appendCommand(b, r), nil
}

// UnmarshalBinary sets r from its wire form (copying the bytes).
func (r *Request) UnmarshalBinary(data []byte) error {
	d := reader{b: data}
	*r = Request{Op: Op(d.byte()), MinSlot: d.uvarint(), ReplyTag: int(d.uvarint() & 0x7fffffff)}
	r.Client, r.Seq, r.Key, r.Value = d.uvarint(), d.uvarint(), d.bytes(), d.bytes()
	if r.Op < OpGet || r.Op > OpStop {
		d.fail("op %d", r.Op)
	}
	return d.done("request")
}

// AppendBinary appends r's wire form to b.
func (r Response) AppendBinary(b []byte) ([]byte, error) {
	b = binary.AppendUvarint(b, r.Client)
	b = binary.AppendUvarint(b, r.Seq)
	b = binary.AppendUvarint(b, r.Slot)
	return appendBytes(b, r.Value), nil
}

// UnmarshalBinary sets r from its wire form (copying the bytes).
func (r *Response) UnmarshalBinary(data []byte) error {
	d := reader{b: data}
	*r = Response{Client: d.uvarint(), Seq: d.uvarint(), Slot: d.uvarint(), Value: d.bytes()}
	return d.done("response")
}

// decodeCommand reads a Set from its agreed bytes.
func decodeCommand(v []byte) (Request, error) {
	d := reader{b: v}
	r := Request{Op: OpSet, Client: d.uvarint(), Seq: d.uvarint(), Key: d.bytes(), Value: d.bytes()}
	return r, d.done("command")
}

// reader reads varints and byte strings; its first error sticks.
type reader struct {
	b   []byte
	err error
}

func (d *reader) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrBadMessage, fmt.Sprintf(format, args...))
	}
	d.b = nil
}

func (d *reader) byte() byte {
	if len(d.b) == 0 {
		d.fail("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *reader) uvarint() uint64 {
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *reader) bytes() []byte {
	n := d.uvarint()
	if n == 0 {
		return nil
	}
	if n-1 > uint64(len(d.b)) {
		d.fail("%d bytes with %d left", n-1, len(d.b))
		return nil
	}
	v := append([]byte{}, d.b[:n-1]...)
	d.b = d.b[n-1:]
	return v
}

func (d *reader) done(what string) error {
	if d.err == nil && len(d.b) > 0 {
		d.fail("%d bytes after the %s", len(d.b), what)
	}
	return d.err
}
