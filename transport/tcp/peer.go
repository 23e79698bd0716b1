package tcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Connection rule: either rank may dial. If both dial at once, the
// connection dialled by the lower rank wins: a lower-ranked acceptor that
// is itself dialling, or already connected by its own dial, refuses the
// higher rank (refuseCollision), and the higher rank, refused so, waits
// for the lower rank's connection to arrive. Each side decides under its peer's lock, and a rank dials only
// while it has no connection, so both ends always keep the same one.
//
// Invariants, for each peer:
//   - c is set at most once (from nil to a conn) while lost is nil and the
//     Endpoint is not closing; when that conn fails, c goes back to nil and
//     lost is set, and nothing is installed after that.
//   - dial is the attempt in progress, if any; its done channel is closed
//     exactly once, under mu, when the attempt ends or a connection is
//     installed by the acceptor.

// peer is the Endpoint's state for one other rank.
type peer struct {
	c    atomic.Pointer[conn] // the live connection; read without mu on the send path
	mu   sync.Mutex
	lost error    // why the peer is gone, for good
	dial *attempt // the dial in progress, or nil
}

// attempt is one dial that Send goroutines wait on together.
type attempt struct {
	done chan struct{}
	err  error // written before done is closed
}

// finish ends a. p.mu must be held.
func (p *peer) finish(a *attempt, err error) {
	if p.dial == a {
		p.dial = nil
		a.err = err
		close(a.done)
	}
}

// install makes c the peer's connection and wakes the waiting senders,
// whose frames queue until the caller starts c. p.mu must be held.
func (p *peer) install(c *conn) {
	p.c.Store(c)
	if p.dial != nil {
		p.finish(p.dial, nil)
	}
}

// close marks the peer closed for Endpoint.Close and returns its conn.
func (p *peer) close() *conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lost = ErrClosed
	return p.c.Swap(nil)
}

// connTo returns the connection to rank, dialling it if needed.
func (e *Endpoint) connTo(ctx context.Context, rank int) (*conn, error) {
	p := &e.peers[rank]
	if c := p.c.Load(); c != nil {
		return c, nil
	}
	p.mu.Lock()
	c, a, err := e.connOrDial(p, rank)
	p.mu.Unlock()
	if c != nil || err != nil {
		return c, err
	}
	select {
	case <-a.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-e.ctx.Done():
		return nil, ErrClosed
	}
	if c := p.c.Load(); c != nil {
		return c, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return nil, cmpOrErr(p.lost, a.err, fmt.Errorf("tcp: connection to rank %d ended during setup", rank))
}

// connOrDial returns the connection, the peer's final error, or the dial
// attempt to wait on, starting one if none is in progress. p.mu must be held.
func (e *Endpoint) connOrDial(p *peer, rank int) (*conn, *attempt, error) {
	if c := p.c.Load(); c != nil {
		return c, nil, nil
	}
	if p.lost != nil {
		return nil, nil, p.lost
	}
	if e.closing.Load() {
		return nil, nil, ErrClosed
	}
	if p.dial == nil {
		p.dial = &attempt{done: make(chan struct{})}
		e.wg.Add(1)
		go e.dial(rank, p.dial)
	}
	return nil, p.dial, nil
}

func cmpOrErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// dial runs attempt a to connect to rank.
func (e *Endpoint) dial(rank int, a *attempt) {
	defer e.wg.Done()
	c, err := e.dialRetry(rank)
	p := &e.peers[rank]
	if errors.Is(err, errCollision) {
		e.awaitIncoming(p, rank, a)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil {
		err = e.installDialled(p, c)
	}
	p.finish(a, err)
}

// installDialled installs c unless something else took its place, which
// the connection rule should make impossible, or the Endpoint is closing,
// in which case c only says Bye. p.mu must be held.
func (e *Endpoint) installDialled(p *peer, c *conn) error {
	if e.closing.Load() {
		c.start()
		c.shutdown()
		return ErrClosed
	}
	if p.c.Load() == nil && p.lost == nil {
		p.install(c)
		c.start()
		return nil
	}
	c.nc.Close()
	e.cfg.Logger.Warn("tcp: dropping a second connection", "rank", e.cfg.Rank, "peer", c.peer)
	return cmpOrErr(p.lost, fmt.Errorf("tcp: rank %d: second connection to rank %d dropped", e.cfg.Rank, c.peer))
}

// awaitIncoming waits, after a collision, for the lower rank's connection.
func (e *Endpoint) awaitIncoming(p *peer, rank int, a *attempt) {
	t := time.NewTimer(e.cfg.HandshakeTimeout)
	defer t.Stop()
	select {
	case <-a.done:
		return
	case <-t.C:
	case <-e.ctx.Done():
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finish(a, fmt.Errorf("tcp: rank %d refused our connection as it dials us, but its connection did not arrive within %v", rank, e.cfg.HandshakeTimeout))
}

// dialConn connects to rank and authenticates.
func (e *Endpoint) dialConn(rank int) (*conn, error) {
	entry, err := e.cfg.Addrs(rank)
	if err != nil {
		return nil, fmt.Errorf("tcp: address of rank %d: %w", rank, err)
	}
	addr, _ := splitAddr(entry) // the rails' addresses follow (JoinAddr)
	a, err := e.keyed(time.Now().Add(e.cfg.HandshakeTimeout))
	if err != nil {
		return nil, fmt.Errorf("tcp: dial rank %d: %w", rank, err)
	}
	d := net.Dialer{Timeout: e.cfg.HandshakeTimeout}
	nc, err := d.DialContext(e.ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("tcp: dial rank %d: %w", rank, err)
	}
	dec := newHandshakeDecoder(nc)
	err = e.handshake(nc, func(func()) error { return a.dialAuth(nc, dec, rank) })
	if err != nil {
		nc.Close()
		return nil, err
	}
	c := newConn(e, rank, nc, dec)
	c.dialled = true
	return c, nil
}

// handshake runs fn under the handshake deadline, closing nc if the
// Endpoint closes before fn calls commit (or returns). After commit a
// closing Endpoint no longer cuts the socket: the connection is installed
// by then and gets a graceful shutdown (Bye), so the peer sees no reset.
func (e *Endpoint) handshake(nc net.Conn, fn func(commit func()) error) error {
	nc.SetDeadline(time.Now().Add(e.cfg.HandshakeTimeout))
	var mu sync.Mutex
	running := true
	commit := func() {
		mu.Lock()
		running = false
		mu.Unlock()
	}
	stop := context.AfterFunc(e.ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if running {
			nc.Close()
		}
	})
	defer stop()
	err := fn(commit)
	commit()
	nc.SetDeadline(time.Time{})
	if e.closing.Load() {
		nc.SetDeadline(time.Now().Add(closeLinger)) // shutdown's deadline may have been cleared above
	}
	return err
}

// lost records that c failed with err and reports it, unless the Endpoint
// is closing. It is called once per started conn, by its reader after the
// last Deliver.
func (e *Endpoint) lost(c *conn, err error) {
	p := &e.peers[c.peer]
	p.mu.Lock()
	if p.c.Load() == c {
		p.c.Store(nil)
		p.lost = err
	}
	p.mu.Unlock()
	if !e.closing.Load() {
		e.cfg.Lost(c.peer, err)
	}
}
