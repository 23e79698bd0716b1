package tcp

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/plexus-hpc/plexus/internal/guard"
)

// accept authenticates one incoming connection and, if the dialer proves
// itself and may connect, makes it the connection to the dialer's rank.
// Whatever goes wrong is logged and closes only this connection. t is the
// connection's place in the handshake gate, given up once the dialer is
// proven.
func (e *Endpoint) accept(nc net.Conn, t *guard.Ticket) {
	defer e.wg.Done()
	defer t.Release()
	dec := newHandshakeDecoder(nc)
	var c *conn
	err := e.handshake(nc, func(commit func()) error {
		a, rank, nonceD, err := e.prove(nc, dec, t)
		if err != nil {
			return err
		}
		c = newConn(e, rank, nc, dec)
		if err := e.claim(c); err != nil {
			c = nil
			return err
		}
		commit() // c is installed: from here Close shuts it down gracefully
		return a.acceptReply(nc, nonceD)
	})
	e.accepted(nc, c, err)
}

// prove runs the acceptor's side of the handshake up to its decision and
// returns the keyed settings, the dialer's rank and its nonce. The proof
// must arrive within PreAuthTimeout, so silent strangers leave the gate
// early. A dialer that fails is told only refusedAuth; the reason is
// logged. If the job secret is not known within three quarters of
// HandshakeTimeout (the dialer's deadline started first), the connection
// is closed without a word, as a busy acceptor sheds one, so that a rank
// dialling a peer still busy with the exchange tries again.
func (e *Endpoint) prove(nc net.Conn, dec *decoder, t *guard.Ticket) (authConf, int, []byte, error) {
	start := time.Now()
	nc.SetReadDeadline(start.Add(e.cfg.PreAuthTimeout))
	h, p, nonceA, err := e.auth.acceptHello(nc, dec)
	a := e.auth
	if err == nil {
		if a, err = e.keyed(start.Add(e.cfg.HandshakeTimeout * 3 / 4)); err != nil {
			return a, 0, nil, err
		}
	}
	var rank int
	var nonceD []byte
	if err == nil {
		rank, nonceD, err = a.acceptCheck(h, p, nonceA)
	}
	if err == nil && !t.Release() {
		err = errEvicted
	}
	if err != nil {
		e.auth.refuse(nc, refuseAuth, refusedAuth)
	}
	return a, rank, nonceD, err
}

// errEvicted is the acceptor's reason for a handshake that the gate ended
// to make room for newer ones.
var errEvicted = errors.New("tcp: handshake ended to make room for newer connections")

// accepted starts c, or reports why the connection is refused or failed.
func (e *Endpoint) accepted(nc net.Conn, c *conn, err error) {
	switch {
	case err == nil:
		c.start()
		return
	case c != nil:
		e.lost(c, c.failed(fmt.Errorf("answering its handshake: %w", err)))
	default:
		nc.Close()
	}
	if !e.closing.Load() && !errors.Is(err, errCollision) {
		e.refusals.Log(slog.LevelWarn, "tcp: refused connection", "from", nc.RemoteAddr().String(), "err", err)
	}
}

// claim installs c as the connection to its rank unless the connection rule
// says otherwise, in which case it tells the dialer why and returns the
// reason. See peer.go for the rule.
func (e *Endpoint) claim(c *conn) error {
	p := &e.peers[c.peer]
	p.mu.Lock()
	defer p.mu.Unlock()
	var code uint64
	var err error
	switch {
	case e.closing.Load():
		code, err = refuseClosing, ErrClosed
	case p.dial != nil && c.peer > e.cfg.Rank, p.c.Load() != nil && p.c.Load().dialled && c.peer > e.cfg.Rank:
		code, err = refuseCollision, errCollision
	case p.c.Load() != nil || p.lost != nil:
		code, err = refuseDuplicate, fmt.Errorf("%w: rank %d is already connected or was lost", ErrAuth, c.peer)
	default:
		p.install(c)
		return nil
	}
	e.auth.refuse(c.nc, code, err.Error())
	return err
}
