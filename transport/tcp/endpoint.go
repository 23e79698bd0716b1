package tcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/internal/guard"
	"github.com/plexus-hpc/plexus/transport/frame"
)

// Bounds on what strangers may cost an Endpoint. At most maxHandshakes
// connections are in their handshake at once, maxHandshakesPerSource of
// them from one IP address, so a flood costs a bounded number of
// goroutines and buffers; beyond that the oldest handshake is ended to
// admit the newest (guard.Gate), which lets a rank through a flood of
// silent connections. Refusals are logged at most refusalBurst lines a
// second, the rest counted in one line a second.
const (
	maxHandshakes          = 128
	maxHandshakesPerSource = 64
	refusalBurst           = 5
)

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
	// key is the job secret once known (key.go).
	key atomic.Pointer[[]byte]
	// gate holds the handshakes in progress; refusals logs their failures.
	gate     *guard.Gate
	refusals *guard.Tally

	frames, writes atomic.Uint64
	// detachLeft is how many more connections start may take out of the
	// netpoller (sock_linux.go); it starts at maxDetached.
	detachLeft atomic.Int32
	// rails is nil unless Config.Rails is set (rails.go).
	rails *railSet
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
		cfg:   cfg,
		auth:  authConf{rank: cfg.Rank, size: cfg.Size, job: cfg.JobID},
		ln:    ln,
		peers: make([]peer, cfg.Size),
		gate:  guard.NewGate(maxHandshakes, maxHandshakesPerSource),
		refusals: guard.NewTally(cfg.Logger.With("rank", cfg.Rank), refusalBurst, time.Second,
			"tcp: refused connections"),
	}
	if cfg.Secret != nil {
		e.key.Store(&cfg.Secret)
	}
	e.detachLeft.Store(maxDetached)
	e.ctx, e.cancel = context.WithCancel(context.Background())
	if err := e.openRails(); err != nil {
		e.cancel()
		ln.Close()
		return nil, err
	}
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

// Send sends a frame to peer, dialling it first if no connection exists,
// and returns once the frame is written or queued; payload may be reused
// at once. If the connection is idle the calling goroutine writes the
// frame itself (waiting for socket space while ctx lasts), which is the
// fastest way out; otherwise the frame is queued for the connection's
// writer, as by Queue. h.Source is set to this rank. Frames sent by one
// goroutine to one peer, by Send or Queue, arrive in order. Send waits
// while the peer's queue is full or its connection is being set up, and
// returns ctx.Err() if ctx ends first. It fails with ErrTooLarge,
// ErrPeerLost, ErrClosed, or the dial's error; a kind other than
// frame.Eager to frame.Credit, or a peer out of range, is an error too.
func (e *Endpoint) Send(ctx context.Context, peer int, h frame.Header, payload []byte) error {
	if e.rails != nil {
		if ok, err := e.railSend(ctx, peer, h, payload); ok {
			return err
		}
	}
	c, err := e.sendConn(ctx, peer, &h, payload)
	if err != nil {
		return err
	}
	return c.send(ctx, h, payload)
}

// Queue is Send that always queues the frame for the connection's writer
// goroutine, which writes everything queued in as few system calls as it
// can. It suits a burst of small frames (a window of non-blocking sends),
// which Send would write one system call each.
func (e *Endpoint) Queue(ctx context.Context, peer int, h frame.Header, payload []byte) error {
	if e.rails != nil {
		if ok, err := e.railSend(ctx, peer, h, payload); ok {
			return err
		}
	}
	c, err := e.sendConn(ctx, peer, &h, payload)
	if err != nil {
		return err
	}
	return c.queue(ctx, h, payload)
}

// PollDone tells the Endpoint that the goroutine that polled peer (every
// peer if negative) has stopped and is about to sleep, so that the
// connection's reader goroutine takes over at once. Without it the reader
// takes over a little later (under a millisecond) by itself.
func (e *Endpoint) PollDone(peer int) {
	if peer >= len(e.peers) {
		return
	}
	for i := range e.peers {
		if peer < 0 || i == peer {
			if c := e.peers[i].c.Load(); c != nil {
				c.pollDone()
			}
		}
	}
}

// sendConn checks a frame for Send or Queue, sets its Source and returns
// the connection to send it on.
func (e *Endpoint) sendConn(ctx context.Context, peer int, h *frame.Header, payload []byte) (*conn, error) {
	if err := e.checkSend(peer, *h, payload); err != nil {
		return nil, err
	}
	h.Source = int32(e.cfg.Rank)
	return e.connTo(ctx, peer)
}

// Poll reads and delivers, in the calling goroutine, whatever frames have
// arrived from peer, or from every peer if peer is negative, and reports
// whether it delivered any. Before reading a connection it writes what is
// queued on it, as much as the socket takes at once, unless another
// goroutine is writing it. It never blocks: a connection another
// goroutine is reading is skipped. A goroutine about to wait for a frame
// may Poll for a few microseconds first; when it finds the frame it saves
// the reader goroutine's netpoller wake-up and its own wake-up, which on
// a small machine cost more than the transfer. Deliver may thus run on
// the polling goroutine. Poll must not be called from Deliver or Lost.
func (e *Endpoint) Poll(peer int) bool {
	if e.closing.Load() || peer >= len(e.peers) {
		return false
	}
	if peer >= 0 {
		c := e.peers[peer].c.Load()
		return c != nil && c.poll()
	}
	got := false
	for i := range e.peers {
		if c := e.peers[i].c.Load(); c != nil && c.poll() {
			got = true
		}
	}
	return got
}

func (e *Endpoint) checkSend(peer int, h frame.Header, payload []byte) error {
	switch {
	case e.closing.Load():
		return ErrClosed
	case peer < 0 || peer >= e.cfg.Size || peer == e.cfg.Rank:
		return fmt.Errorf("tcp: rank %d cannot send to rank %d (size %d)", e.cfg.Rank, peer, e.cfg.Size)
	case !h.Kind.User():
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
		if e.rails != nil {
			e.rails.flushRails(time.Now().Add(closeLinger))
		}
		e.closing.Store(true)
		e.cancel()
		e.ln.Close()
		for i := range e.peers {
			if c := e.peers[i].close(); c != nil {
				c.shutdown()
			}
		}
		e.wg.Wait()
		e.refusals.Stop()
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
			e.refusals.Log(slog.LevelError, "tcp: accept", "err", err)
			time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors
			continue
		}
		t := e.gate.Admit(guard.Source(nc.RemoteAddr()), func() { nc.Close() })
		e.wg.Add(1)
		go e.accept(nc, t)
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
