package tcp

import (
	"errors"
	"fmt"
	"net"
)

// accept authenticates one incoming connection and, if the dialer proves
// itself and may connect, makes it the connection to the dialer's rank.
// Whatever goes wrong is logged and closes only this connection.
func (e *Endpoint) accept(nc net.Conn) {
	defer e.wg.Done()
	defer func() { <-e.hsSlots }()
	dec := newHandshakeDecoder(nc)
	var c *conn
	err := e.handshake(nc, func(commit func()) error {
		rank, nonceD, err := e.auth.acceptAuth(nc, dec)
		if err != nil {
			e.auth.refuse(nc, refuseAuth, err.Error())
			return err
		}
		c = newConn(e, rank, nc, dec)
		if err := e.claim(c); err != nil {
			c = nil
			return err
		}
		commit() // c is installed: from here Close shuts it down gracefully
		return e.auth.acceptReply(nc, nonceD)
	})
	e.accepted(nc, c, err)
}

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
		e.cfg.Log("tcp: rank %d: refused connection from %v: %v", e.cfg.Rank, nc.RemoteAddr(), err)
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
