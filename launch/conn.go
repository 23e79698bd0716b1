package launch

import (
	"bytes"
	"context"
	"crypto/hmac"
	"fmt"
	"net"
	"time"
)

// conn is one rank's bootstrap connection, seen from either end, with the
// nonces that bind its messages to it.
type conn struct {
	net.Conn
	secret         []byte
	nonce0, nonce1 []byte
	rank           int
	addr           string
	// release detaches the connection from the admitting context; collect
	// calls it, so that ending the bootstrap's context does not close a
	// connection still waiting for its book.
	release func() bool
}

// register dials rank 0, proves the secret, registers and waits for the
// acknowledgement that proves rank 0 holds the secret too.
func (b Bootstrap) register(ctx context.Context, root string, secret []byte, info Info, myAddr string) (*conn, error) {
	d := net.Dialer{Timeout: b.handshake()}
	nc, err := d.DialContext(ctx, "tcp", root)
	if err != nil {
		return nil, err
	}
	c := &conn{Conn: nc, secret: secret, nonce1: newNonce(), rank: info.Rank, addr: myAddr}
	if err := c.clientHandshake(ctx, b.handshake(), info.Size); err != nil {
		nc.Close()
		return nil, fmt.Errorf("launch: bootstrap handshake with %s: %w", root, err)
	}
	return c, nil
}

func (c *conn) clientHandshake(ctx context.Context, limit time.Duration, size int) error {
	c.SetDeadline(deadline(ctx, limit))
	hello, err := readFrame(c, len(magic)+nonceLen)
	if err != nil {
		return err
	}
	nonce0, ok := bytes.CutPrefix(hello, []byte(magic))
	if !ok || len(nonce0) != nonceLen {
		return fmt.Errorf("%w: not a plexus bootstrap server", errFrame)
	}
	c.nonce0 = nonce0
	reg := register{nonce: c.nonce1, rank: c.rank, size: size, addr: c.addr}
	if err := writeFrame(c, encodeRegister(c.secret, nonce0, reg)); err != nil {
		return err
	}
	ack, err := readFrame(c, macLen)
	if err != nil {
		return fmt.Errorf("no acknowledgement (a different job secret?): %w", err)
	}
	if !hmac.Equal(ack, mac(c.secret, "ack", c.nonce0, c.nonce1, nil)) {
		return errBadMAC
	}
	return c.SetDeadline(time.Time{})
}

// awaitBook reads the address book rank 0 sends once every rank has
// registered. Rank 0 closing the connection first means it gave up, so
// this is not retried.
func (c *conn) awaitBook(ctx context.Context, size int) (Book, error) {
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	frame, err := readFrame(c, 4+size*(2+maxAddr)+macLen)
	if ctx.Err() != nil {
		return Book{}, fmt.Errorf("launch: rank %d got no address book: %w", c.rank, ctx.Err())
	}
	if err != nil {
		return Book{}, fmt.Errorf("launch: rank %d: rank 0 ended the bootstrap without an address book: %w", c.rank, err)
	}
	addrs, err := decodeBook(c.secret, c.nonce0, c.nonce1, frame)
	if err == nil && len(addrs) != size {
		err = fmt.Errorf("%w: address book of %d ranks, want %d", errFrame, len(addrs), size)
	}
	if err != nil {
		return Book{}, err
	}
	return Book{Addrs: addrs, Secret: c.secret}, nil
}

// deadline is now+limit, or ctx's deadline when that is sooner.
func deadline(ctx context.Context, limit time.Duration) time.Time {
	t := time.Now().Add(limit)
	if d, ok := ctx.Deadline(); ok && d.Before(t) {
		return d
	}
	return t
}
