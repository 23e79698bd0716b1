package multirail

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// The chunk header, little-endian, before every chunk's bytes; an ack is
// a header alone (docs/wire-format.md, "Multirail chunks"):
//
//	0  magic  u16  0x4d52 ("MR")
//	2  kind   u8   kindData or kindAck
//	3  -      u8   zero
//	4  len    u32  the chunk's length
//	8  msg    u64  the message's number, from 0 per sender
//	16 off    u64  the chunk's offset in the message
//	24 total  u64  the message's length
//	32 crc    u32  CRC-32C of the chunk's bytes (data), zero (ack)
//	36 -      u32  zero
const (
	headerLen = 40
	magic     = 0x4d52
	kindData  = 1
	kindAck   = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header is a decoded chunk header.
type header struct {
	kind  byte
	len   uint32
	msg   uint64
	off   uint64
	total uint64
	crc   uint32
}

func (h header) put(b []byte) {
	binary.LittleEndian.PutUint16(b[0:], magic)
	b[2], b[3] = h.kind, 0
	binary.LittleEndian.PutUint32(b[4:], h.len)
	binary.LittleEndian.PutUint64(b[8:], h.msg)
	binary.LittleEndian.PutUint64(b[16:], h.off)
	binary.LittleEndian.PutUint64(b[24:], h.total)
	binary.LittleEndian.PutUint32(b[32:], h.crc)
	binary.LittleEndian.PutUint32(b[36:], 0)
}

// parseHeader decodes and checks a header against the largest message
// this side accepts.
func parseHeader(b []byte, maxMessage int) (header, error) {
	h := header{kind: b[2], len: binary.LittleEndian.Uint32(b[4:]), msg: binary.LittleEndian.Uint64(b[8:]),
		off: binary.LittleEndian.Uint64(b[16:]), total: binary.LittleEndian.Uint64(b[24:]), crc: binary.LittleEndian.Uint32(b[32:])}
	switch {
	case binary.LittleEndian.Uint16(b[0:]) != magic || b[3] != 0 || binary.LittleEndian.Uint32(b[36:]) != 0:
		return h, fmt.Errorf("%w: bad magic or reserved bytes % x", ErrMalformed, b[:4])
	case h.kind != kindData && h.kind != kindAck:
		return h, fmt.Errorf("%w: kind %d", ErrMalformed, h.kind)
	case h.total > uint64(maxMessage):
		return h, fmt.Errorf("%w: message %d of %d bytes, over the limit of %d", ErrMalformed, h.msg, h.total, maxMessage)
	case h.len == 0 && h.total > 0, h.off > h.total, uint64(h.len) > h.total-h.off:
		return h, fmt.Errorf("%w: chunk [%d, +%d) of message %d of %d bytes", ErrMalformed, h.off, h.len, h.msg, h.total)
	}
	return h, nil
}

// whole reports whether h is the one chunk of its message.
func (h header) whole() bool { return h.off == 0 && uint64(h.len) == h.total }
