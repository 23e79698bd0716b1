package launch

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The bootstrap protocol, one TCP connection per rank to rank 0, each
// message a frame of a 4-byte big-endian length and a payload:
//
//	rank 0 → rank:  hello    = magic, nonce0
//	rank → rank 0:  register = magic, nonce1, rank u32, size u32, addr, mac
//	rank 0 → rank:  ack      = mac
//	rank 0 → rank:  book     = count u32, addrs, mac   (once all ranks registered)
//
// Strings are a u16 length and bytes. Every mac is HMAC-SHA256 keyed with
// the job secret over a label, both nonces and the message body, so the
// secret never travels, a recorded exchange cannot be replayed (nonce0 is
// fresh per connection), and a rank accepts only an ack and a book that
// rank 0 made for this very connection.
const (
	magic     = "plexus-bootstrap/1"
	nonceLen  = 32
	macLen    = sha256.Size
	maxAddr   = 1024    // longest data address a rank may register
	maxRanks  = 1 << 20 // largest job the book can describe
	lenPrefix = 4
)

// maxRegister is the longest valid registration, the one frame rank 0
// reads before the secret is checked: a stranger's announced length can
// make it allocate no more.
const maxRegister = len(magic) + nonceLen + 8 + 2 + maxAddr + macLen

var errFrame = errors.New("launch: malformed bootstrap message")

func writeFrame(w io.Writer, payload []byte) error {
	buf := binary.BigEndian.AppendUint32(make([]byte, 0, lenPrefix+len(payload)), uint32(len(payload)))
	_, err := w.Write(append(buf, payload...))
	return err
}

// readFrame reads one frame of at most limit bytes, so a stranger cannot
// make rank 0 allocate what it likes.
func readFrame(r io.Reader, limit int) ([]byte, error) {
	var hdr [lenPrefix]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > uint32(limit) {
		return nil, fmt.Errorf("%w: frame of %d bytes, limit %d", errFrame, n, limit)
	}
	buf := make([]byte, n)
	_, err := io.ReadFull(r, buf)
	return buf, err
}

func newNonce() []byte {
	b := make([]byte, nonceLen)
	rand.Read(b) // never fails on supported platforms
	return b
}

func mac(secret []byte, label string, nonce0, nonce1, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(label))
	h.Write([]byte{0})
	h.Write(nonce0)
	h.Write(nonce1)
	h.Write(body)
	return h.Sum(nil)
}

// register is a rank's registration as rank 0 reads it.
type register struct {
	nonce      []byte
	rank, size int
	addr       string
}

func encodeRegister(secret, nonce0 []byte, r register) []byte {
	b := append([]byte(magic), r.nonce...)
	b = binary.BigEndian.AppendUint32(b, uint32(r.rank))
	b = binary.BigEndian.AppendUint32(b, uint32(r.size))
	b = appendString(b, r.addr)
	return append(b, mac(secret, "register", nonce0, r.nonce, b)...)
}

// decodeRegister parses and authenticates a registration.
func decodeRegister(secret, nonce0, b []byte) (register, error) {
	body, sum, ok := splitMAC(b)
	rest, hasMagic := bytes.CutPrefix(body, []byte(magic))
	if !ok || !hasMagic || len(rest) < nonceLen+8 {
		return register{}, fmt.Errorf("%w: not a registration", errFrame)
	}
	r := register{nonce: rest[:nonceLen]}
	r.rank = int(binary.BigEndian.Uint32(rest[nonceLen:]))
	r.size = int(binary.BigEndian.Uint32(rest[nonceLen+4:]))
	addr, tail, err := cutString(rest[nonceLen+8:])
	if err != nil || len(tail) > 0 {
		return register{}, fmt.Errorf("%w: bad address field", errFrame)
	}
	if !hmac.Equal(sum, mac(secret, "register", nonce0, r.nonce, body)) {
		return register{}, errBadMAC
	}
	r.addr = addr
	return r, nil
}

var errBadMAC = errors.New("launch: bootstrap message not signed with the job secret")

func encodeBook(secret, nonce0, nonce1 []byte, addrs []string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(addrs)))
	for _, a := range addrs {
		b = appendString(b, a)
	}
	return append(b, mac(secret, "book", nonce0, nonce1, b)...)
}

func decodeBook(secret, nonce0, nonce1, b []byte) ([]string, error) {
	body, sum, ok := splitMAC(b)
	if !ok || len(body) < 4 {
		return nil, fmt.Errorf("%w: not an address book", errFrame)
	}
	if !hmac.Equal(sum, mac(secret, "book", nonce0, nonce1, body)) {
		return nil, errBadMAC
	}
	n := binary.BigEndian.Uint32(body)
	rest := body[4:]
	addrs := make([]string, 0, min(n, maxRanks))
	for range n {
		a, tail, err := cutString(rest)
		if err != nil {
			return nil, fmt.Errorf("%w: address book cut short", errFrame)
		}
		addrs, rest = append(addrs, a), tail
	}
	return addrs, nil
}

func splitMAC(b []byte) (body, sum []byte, ok bool) {
	if len(b) < macLen {
		return nil, nil, false
	}
	return b[:len(b)-macLen], b[len(b)-macLen:], true
}

func appendString(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...)
}

func cutString(b []byte) (string, []byte, error) {
	if len(b) < 2 || len(b) < 2+int(binary.BigEndian.Uint16(b)) {
		return "", nil, errFrame
	}
	n := 2 + int(binary.BigEndian.Uint16(b))
	return string(b[2:n]), b[n:], nil
}
