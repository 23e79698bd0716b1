package tcp

// The handshake, run on every new connection before any other frame:
//
//	acceptor → dialer   Hello  Source=acceptor rank, payload = nonceA (32 random bytes)
//	dialer → acceptor   Auth   Source=dialer rank, Aux=job size,
//	                           payload = nonceD (32) ‖ macD (32) ‖ job id
//	acceptor → dialer   Auth   Source=acceptor rank, payload = macA (32)
//	                or  Bye    Aux=refusal code, payload = reason
//
//	macD = HMAC-SHA256(secret, "plexus-auth-v1" ‖ 'D' ‖ job ‖ nonceA ‖ dialer rank)
//	macA = HMAC-SHA256(secret, "plexus-auth-v1" ‖ 'A' ‖ job ‖ nonceD ‖ acceptor rank)
//
// Each side's nonce is fresh, so a recorded answer is useless on another
// connection; the role byte keeps one side's proof from ever serving as the
// other's. The secret itself is never sent.

import (
	"bufio"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"net"

	"github.com/plexus-hpc/plexus/transport/frame"
)

const (
	authLabel   = "plexus-auth-v1"
	nonceSize   = 32
	macSize     = sha256.Size
	roleDialer  = 'D'
	roleAccept  = 'A'
	maxHSFrame  = 2*nonceSize + macSize + MaxJobID // largest handshake payload
	authPayload = nonceSize + macSize              // Auth payload without the job
	hsBufSize   = 4 << 10                          // a handshake's read buffer
)

// Refusal codes, carried in a refusing Bye's Aux.
const (
	refuseAuth      = 1 + iota // wrong MAC, job, size or rank
	refuseDuplicate            // the rank is already connected or was lost
	refuseCollision            // both dialled at once; the lower rank's dial wins
	refuseClosing              // the acceptor is closing
)

// errCollision is the dialer's error when the acceptor keeps its own dial.
var errCollision = errors.New("tcp: simultaneous dial; the lower rank's connection wins")

// authConf is what both sides of a handshake must agree on.
type authConf struct {
	rank, size int
	job        string
	secret     []byte
}

func (a *authConf) mac(role byte, nonce []byte, rank int) []byte {
	m := hmac.New(sha256.New, a.secret)
	m.Write([]byte(authLabel))
	m.Write([]byte{role})
	m.Write([]byte(a.job))
	m.Write(nonce)
	m.Write(binary.LittleEndian.AppendUint32(nil, uint32(rank)))
	return m.Sum(nil)
}

func newNonce() []byte {
	n := make([]byte, nonceSize)
	rand.Read(n) // never fails on supported platforms (crypto/rand docs)
	return n
}

func writeFrame(nc net.Conn, h frame.Header, payload []byte) error {
	_, err := nc.Write(appendFrame(nil, h, payload))
	return err
}

// dialAuth runs the dialer's side on nc, which must expect rank want, and
// returns nil once both sides are proven. The caller sets the deadline.
func (a *authConf) dialAuth(nc net.Conn, dec *decoder, want int) error {
	h, nonceA, err := dec.Next()
	if err != nil {
		return fmt.Errorf("tcp: handshake with rank %d: reading Hello: %w", want, err)
	}
	if h.Kind != frame.Hello || len(nonceA) != nonceSize {
		return fmt.Errorf("%w: handshake with rank %d: got %s with %d bytes, want Hello", ErrMalformed, want, h.Kind, len(nonceA))
	}
	if int(h.Source) != want {
		return fmt.Errorf("%w: address of rank %d is served by rank %d", ErrAuth, want, h.Source)
	}
	nonceD := newNonce()
	p := append(append(nonceD, a.mac(roleDialer, nonceA, a.rank)...), a.job...)
	if err := writeFrame(nc, frame.Header{Kind: frame.Auth, Source: int32(a.rank), Aux: uint64(a.size)}, p); err != nil {
		return fmt.Errorf("tcp: handshake with rank %d: %w", want, err)
	}
	return a.dialVerify(dec, want, nonceD)
}

// dialVerify reads the acceptor's answer: its proof, or a refusal.
func (a *authConf) dialVerify(dec *decoder, want int, nonceD []byte) error {
	h, p, err := dec.Next()
	if err != nil {
		return fmt.Errorf("tcp: handshake with rank %d: reading answer: %w", want, err)
	}
	switch {
	case h.Kind == frame.Bye && h.Aux == refuseCollision:
		return errCollision
	case h.Kind == frame.Bye && h.Aux == refuseAuth:
		return fmt.Errorf("%w: rank %d refused the connection: %q (is it of another job, or keyed with another secret?)", ErrAuth, want, p)
	case h.Kind == frame.Bye:
		return fmt.Errorf("%w: rank %d refused the connection: %q", ErrAuth, want, p)
	case h.Kind != frame.Auth || len(p) != macSize:
		return fmt.Errorf("%w: handshake with rank %d: got %s with %d bytes, want Auth", ErrMalformed, want, h.Kind, len(p))
	case !hmac.Equal(p, a.mac(roleAccept, nonceD, want)):
		return fmt.Errorf("%w: rank %d does not hold the job secret", ErrAuth, want)
	}
	return nil
}

// acceptHello runs the acceptor's side up to the dialer's proof: it sends
// Hello and reads the Auth frame, which it returns with the Hello's nonce.
// The caller then checks the proof with acceptCheck, which needs the
// secret, claims the rank and calls acceptReply or refuse.
func (a *authConf) acceptHello(nc net.Conn, dec *decoder) (frame.Header, []byte, []byte, error) {
	nonceA := newNonce()
	if err := writeFrame(nc, frame.Header{Kind: frame.Hello, Source: int32(a.rank)}, nonceA); err != nil {
		return frame.Header{}, nil, nil, fmt.Errorf("tcp: handshake: sending Hello: %w", err)
	}
	h, p, err := dec.Next()
	if err != nil {
		return frame.Header{}, nil, nil, fmt.Errorf("tcp: handshake: reading Auth: %w", err)
	}
	if h.Kind != frame.Auth || len(p) < authPayload {
		return frame.Header{}, nil, nil, fmt.Errorf("%w: handshake: got %s with %d bytes, want Auth", ErrMalformed, h.Kind, len(p))
	}
	return h, p, nonceA, nil
}

// acceptCheck checks the dialer's Auth frame h, p against the Hello's
// nonce and returns the dialer's rank and nonce. Its errors are for the
// local log only: they name the job.
func (a *authConf) acceptCheck(h frame.Header, p, nonceA []byte) (int, []byte, error) {
	rank, nonceD, mac, job := int(h.Source), p[:nonceSize], p[nonceSize:authPayload], p[authPayload:]
	if string(job) != a.job {
		return 0, nil, fmt.Errorf("%w: dialer claiming rank %d belongs to job %q, not %q", ErrAuth, rank, job, a.job)
	}
	if h.Aux != uint64(a.size) || rank < 0 || rank >= a.size || rank == a.rank {
		return 0, nil, fmt.Errorf("%w: dialer claims rank %d of %d; this is rank %d of %d", ErrAuth, rank, h.Aux, a.rank, a.size)
	}
	if !hmac.Equal(mac, a.mac(roleDialer, nonceA, rank)) {
		return 0, nil, fmt.Errorf("%w: dialer claiming rank %d has a wrong MAC (wrong secret?)", ErrAuth, rank)
	}
	return rank, nonceD, nil
}

// acceptReply proves to the dialer that this side holds the secret too.
func (a *authConf) acceptReply(nc net.Conn, nonceD []byte) error {
	return writeFrame(nc, frame.Header{Kind: frame.Auth, Source: int32(a.rank)}, a.mac(roleAccept, nonceD, a.rank))
}

// refusedAuth is the whole reason given to a dialer that did not prove
// itself: whoever it is, it learns nothing about the job.
const refusedAuth = "authentication failed"

// refuse tells the dialer why, best effort: the connection is closed next.
// A dialer that has not proven itself gets refusedAuth and nothing more.
func (a *authConf) refuse(nc net.Conn, code uint64, reason string) {
	writeFrame(nc, frame.Header{Kind: frame.Bye, Source: int32(a.rank), Aux: code}, []byte(reason))
}

// newHandshakeDecoder reads handshake frames with a small payload limit
// and a small buffer, so a stranger cannot make the acceptor allocate
// much; the connection's reader takes over whatever the buffer holds
// beyond the handshake (newConn), since frames may follow it in the same
// segment.
func newHandshakeDecoder(nc net.Conn) *decoder {
	return newDecoder(bufio.NewReaderSize(nc, hsBufSize), maxHSFrame)
}
