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

// maxHandshakes bounds the handshakes in progress, so that a flood of
// strangers costs a bounded number of goroutines; beyond it, new
// connections are closed at once.
const maxHandshakes = 128

// Endpoint is one rank's end of the job: a listener and at most one
// connection to each other rank, dialled on first Send or accepted from the
// peer. Its methods are safe for concurrent use.
type Endpoint struct {
	cfg   Config
	auth  authConf
	ln    net.Listener
	peers []peer

	ctx     context.Context // cancelled by Close: ends dials and handshakes
	cancel  context.CancelFunc
	closing atomic.Bool
	once    sync.Once
	wg      sync.WaitGroup
	hsSlots chan struct{}

	frames, writes atomic.Uint64
}

// Stats counts an Endpoint's outgoing traffic over all connections.
type Stats struct {
	// Frames is the number of frames written, including Pings and Byes.
	Frames uint64
	// Writes is the number of writes to sockets; Frames/Writes is the
	// write-combining factor.
	Writes uint64
}

// Listen validates cfg, starts listening on cfg.Listen and returns the
// Endpoint. Connections to peers open lazily.
func Listen(cfg Config) (*Endpoint, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("tcp: rank %d: %w", cfg.Rank, err)
	}
	e := &Endpoint{
		cfg:     cfg,
		auth:    authConf{rank: cfg.Rank, size: cfg.Size, job: cfg.JobID, secret: cfg.Secret},
		ln:      ln,
		peers:   make([]peer, cfg.Size),
		hsSlots: make(chan struct{}, maxHandshakes),
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.wg.Add(1)
	go e.acceptLoop()
	if cfg.Heartbeat > 0 {
		e.wg.Add(1)
		go e.heartbeat()
	}
	return e, nil
}

// Addr returns the address the Endpoint listens on, for the address book.
func (e *Endpoint) Addr() string { return e.ln.Addr().String() }

// Rank returns this Endpoint's rank.
func (e *Endpoint) Rank() int { return e.cfg.Rank }

// Stats returns the traffic counters.
func (e *Endpoint) Stats() Stats {
	return Stats{Frames: e.frames.Load(), Writes: e.writes.Load()}
}

// Send queues a frame for peer, dialling it first if no connection exists,
// and returns once the frame is queued; payload may be reused at once.
// h.Source is set to this rank. Frames sent by one goroutine to one peer
// arrive in order. Send waits while the peer's queue is full or its
// connection is being set up, and returns ctx.Err() if ctx ends first.
// It fails with ErrTooLarge, ErrPeerLost, ErrClosed, or the dial's error.
func (e *Endpoint) Send(ctx context.Context, peer int, h Header, payload []byte) error {
	if err := e.checkSend(peer, h, payload); err != nil {
		return err
	}
	c, err := e.connTo(ctx, peer)
	if err != nil {
		return err
	}
	h.Source = int32(e.cfg.Rank)
	return c.send(ctx, h, payload)
}

func (e *Endpoint) checkSend(peer int, h Header, payload []byte) error {
	switch {
	case e.closing.Load():
		return ErrClosed
	case peer < 0 || peer >= e.cfg.Size || peer == e.cfg.Rank:
		return fmt.Errorf("tcp: rank %d cannot send to rank %d (size %d)", e.cfg.Rank, peer, e.cfg.Size)
	case !h.Kind.userKind():
		return fmt.Errorf("tcp: Send of a %s frame: only Eager, RTS, CTS, Data and Credit are the caller's", h.Kind)
	case len(payload) > e.cfg.MaxPayload:
		return fmt.Errorf("%w: %d bytes to rank %d, limit %d", ErrTooLarge, len(payload), peer, e.cfg.MaxPayload)
	}
	return nil
}

// Close sends a Bye on every connection, closes the listener and all
// connections, fails pending and later Sends with ErrClosed, and waits for
// the Endpoint's goroutines — including Deliver and Lost calls in progress,
// so it must not be called from them. Close does not report peers lost.
func (e *Endpoint) Close() error {
	e.once.Do(func() {
		e.closing.Store(true)
		e.cancel()
		e.ln.Close()
		for i := range e.peers {
			if c := e.peers[i].close(); c != nil {
				c.shutdown()
			}
		}
		e.wg.Wait()
	})
	return nil
}

// acceptLoop accepts connections and authenticates each in its own
// goroutine, so a slow stranger delays no one else.
func (e *Endpoint) acceptLoop() {
	defer e.wg.Done()
	for {
		nc, err := e.ln.Accept()
		if err != nil {
			if e.closing.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			e.cfg.Log("tcp: rank %d: accept: %v", e.cfg.Rank, err)
			time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors
			continue
		}
		select {
		case e.hsSlots <- struct{}{}:
			e.wg.Add(1)
			go e.accept(nc)
		default:
			e.cfg.Log("tcp: rank %d: refused %v: %d handshakes already in progress", e.cfg.Rank, nc.RemoteAddr(), maxHandshakes)
			nc.Close()
		}
	}
}

// heartbeat ticks every connection until Close.
func (e *Endpoint) heartbeat() {
	defer e.wg.Done()
	t := time.NewTicker(e.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-e.ctx.Done():
			return
		case <-t.C:
			for i := range e.peers {
				if c := e.peers[i].c.Load(); c != nil {
					c.tick()
				}
			}
		}
	}
}
