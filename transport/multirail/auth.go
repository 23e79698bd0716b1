package multirail

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// ErrAuth reports a peer that did not prove it holds the secret.
var ErrAuth = errors.New("multirail: authentication failed")

// authLabel separates these proofs from every other use of the secret.
const authLabel = "plexus-rail-v1"

// Handshake proves to the peer on conn, and checks, that both hold
// secret, before any chunk. The dialer sends a fresh nonce; the acceptor
// answers with its own nonce and the HMAC-SHA256 of the dialer's under
// the secret; the dialer checks it and answers with the HMAC of the
// acceptor's nonce. Each proof carries its role, so that one side's
// proof never serves as the other's, and a dialer that finds the
// acceptor's proof wrong sends none of its own. The dialer passes dialer
// true. It gives up after timeout.
func Handshake(conn net.Conn, secret []byte, dialer bool, timeout time.Duration) error {
	if len(secret) == 0 {
		return fmt.Errorf("%w: no secret", ErrAuth)
	}
	conn.SetDeadline(time.Now().Add(timeout))
	defer conn.SetDeadline(time.Time{})
	var err error
	if dialer {
		err = dial(conn, secret)
	} else {
		err = accept(conn, secret)
	}
	if err != nil && !errors.Is(err, ErrAuth) {
		err = fmt.Errorf("multirail: handshake: %w", err)
	}
	return err
}

func dial(conn net.Conn, secret []byte) error {
	mine := nonce()
	if _, err := conn.Write(mine); err != nil {
		return err
	}
	b := make([]byte, nonceLen+sha256.Size)
	if _, err := io.ReadFull(conn, b); err != nil {
		return err
	}
	if !hmac.Equal(b[nonceLen:], proof(secret, 'A', mine)) {
		return ErrAuth
	}
	_, err := conn.Write(proof(secret, 'D', b[:nonceLen]))
	return err
}

func accept(conn net.Conn, secret []byte) error {
	theirs := make([]byte, nonceLen)
	if _, err := io.ReadFull(conn, theirs); err != nil {
		return err
	}
	mine := nonce()
	if _, err := conn.Write(append(mine, proof(secret, 'A', theirs)...)); err != nil {
		return err
	}
	got := make([]byte, sha256.Size)
	if _, err := io.ReadFull(conn, got); err != nil {
		return err
	}
	if !hmac.Equal(got, proof(secret, 'D', mine)) {
		return ErrAuth
	}
	return nil
}

const nonceLen = 32

func nonce() []byte {
	b := make([]byte, nonceLen)
	rand.Read(b) // never fails on supported platforms (crypto/rand docs)
	return b
}

func proof(secret []byte, role byte, nonce []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(authLabel))
	m.Write([]byte{role})
	m.Write(nonce)
	return m.Sum(nil)
}
