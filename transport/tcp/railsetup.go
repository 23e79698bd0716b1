package tcp

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/plexus-hpc/plexus/internal/guard"
	"github.com/plexus-hpc/plexus/rail"
	"github.com/plexus-hpc/plexus/transport/frame"
	"github.com/plexus-hpc/plexus/transport/multirail"
)

// A rail connection opens with the main connection's handshake (auth.go:
// the same proofs on the same secret, so only the job's ranks get one),
// then the dialer's intro: its rail's index and how many rails it opened,
// two little-endian u32. From then on it carries multirail chunks
// (docs/wire-format.md), each chunk's message one whole frame of this
// transport: header and payload.
const (
	introSize = 8
	maxRails  = 64
	// introSample in the intro's count asks the acceptor to answer
	// multirail.Sample on the rail first (multirail.Echo).
	introSample = 1 << 31
)

// quickSample is what a rail is sampled with at first contact when no
// profile file names it: two sizes, one round trip and a short stream
// each, a few megabytes in all, so that setup costs tens of milliseconds
// on a slow rail; the Link's learning from its acknowledgements refines
// the split from there.
var quickSample = multirail.SampleConfig{Sizes: []int{64 << 10, 1 << 20}, Reps: 1, StreamBytes: 1 << 20}

// outLink returns the rails this rank sends to peer over, setting them up
// the first time: nil when the two have no rails in common or none could
// be opened, which is logged once.
func (rs *railSet) outLink(peer int) *multirail.Link {
	rp := &rs.peers[peer]
	rp.setup.Do(func() {
		l, err := rs.dialLink(peer)
		log := rs.e.cfg.Logger.With("rank", rs.e.cfg.Rank, "peer", peer)
		switch {
		case err != nil:
			log.Warn("tcp: no rails; the main connection carries everything", "err", err)
		case l != nil:
			rp.mu.Lock()
			closed := rp.closed
			rp.mu.Unlock()
			if closed {
				l.Close()
				return
			}
			rp.out.Store(l)
		}
	})
	return rp.out.Load()
}

// dialLink dials the rails paired with peer's, in parallel, and makes a
// Link of those that answer; nil and no error when none pair.
func (rs *railSet) dialLink(peer int) (*multirail.Link, error) {
	entry, err := rs.e.cfg.Addrs(peer)
	if err != nil {
		return nil, fmt.Errorf("tcp: address of rank %d: %w", peer, err)
	}
	_, remote := splitAddr(entry)
	pairs := pairRails(rs.local, remote)
	if len(pairs) == 0 {
		return nil, nil
	}
	conns := make([]net.Conn, len(pairs))
	errs := make([]error, len(pairs))
	var wg sync.WaitGroup
	for i, p := range pairs {
		wg.Go(func() { conns[i], errs[i] = rs.e.dialRail(peer, p) })
	}
	wg.Wait()
	var up []net.Conn
	var upPairs []multirail.Addr
	for i := range pairs {
		if errs[i] != nil {
			rs.e.cfg.Logger.Warn("tcp: rail unavailable", "rank", rs.e.cfg.Rank, "peer", peer, "rail", pairs[i].Local+">"+pairs[i].Remote, "err", errs[i])
			continue
		}
		up, upPairs = append(up, conns[i]), append(upPairs, pairs[i])
	}
	if len(up) == 0 {
		return nil, fmt.Errorf("tcp: none of %d rails to rank %d answered: %w", len(pairs), peer, errs[0])
	}
	return rs.startOut(peer, up, upPairs)
}

// startOut sends each rail its intro, samples the rails unless the
// profile file has them, and makes the Link.
func (rs *railSet) startOut(peer int, conns []net.Conn, pairs []multirail.Addr) (*multirail.Link, error) {
	profiles, how, known := railProfiles(rs.e.cfg.RailProfiles, pairs)
	for i, c := range conns {
		if err := writeIntro(c, i, len(conns), !known, rs.e.cfg.HandshakeTimeout); err != nil {
			closeAll(conns)
			return nil, fmt.Errorf("tcp: rail %s>%s to rank %d: intro: %w", pairs[i].Local, pairs[i].Remote, peer, err)
		}
	}
	if !known {
		var err error
		if profiles, err = rs.sample(conns, pairs); err != nil {
			closeAll(conns)
			return nil, fmt.Errorf("tcp: rails to rank %d: %s, and sampling failed: %w", peer, how, err)
		}
		how += ": sampled at first contact"
		rs.cache(peer, pairs, profiles)
	}
	for i, c := range conns {
		if rs.wrap != nil {
			conns[i] = rs.wrap(i, c)
		}
	}
	rs.e.cfg.Logger.Debug("tcp: rails up", "rank", rs.e.cfg.Rank, "peer", peer, "rails", len(conns), "profiles", how)
	return multirail.New(conns, profiles, rs.linkConfig(peer, pairs, true))
}

func writeIntro(c net.Conn, index, count int, sample bool, timeout time.Duration) error {
	var b [introSize]byte
	binary.LittleEndian.PutUint32(b[:], uint32(index))
	n := uint32(count)
	if sample {
		n |= introSample
	}
	binary.LittleEndian.PutUint32(b[4:], n)
	c.SetWriteDeadline(time.Now().Add(timeout))
	defer c.SetWriteDeadline(time.Time{})
	_, err := c.Write(b[:])
	return err
}

// sample times every rail at once (quickSample) and returns their
// profiles.
func (rs *railSet) sample(conns []net.Conn, pairs []multirail.Addr) ([]rail.Profile, error) {
	ctx, cancel := context.WithTimeout(rs.e.ctx, rs.e.cfg.HandshakeTimeout)
	defer cancel()
	out := make([]rail.Profile, len(conns))
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			s, err := multirail.Sample(ctx, c, quickSample)
			if err == nil {
				out[i], err = rail.NewProfile(pairs[i].Local+">"+pairs[i].Remote, s)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// linkConfig is the multirail settings towards or from peer; pairs name
// the rails in what it reports (railDown).
func (rs *railSet) linkConfig(peer int, pairs []multirail.Addr, out bool) multirail.Config {
	window := 0 // the default, for the Link that receives
	if out {
		window = railSendWindow
	}
	return multirail.Config{
		MaxMessage: headerSize + rs.e.cfg.MaxPayload,
		Window:     window,
		RailDown: func(i int, err error) {
			name := fmt.Sprint(i)
			if i < len(pairs) {
				name = pairs[i].Local + ">" + pairs[i].Remote
			}
			rs.railDown(peer, name, out, err)
		},
	}
}

// railDown reports a failed rail. One that fails under a Link that sends
// is counted and logged at Warn: its chunks go again on the others;
// unless the peer is closing its Endpoint, which ends its rails just
// before its Bye arrives, so the report waits a moment for that. One that
// ends under a Link that receives is logged at Debug only: the peer's end
// notices a broken rail and resends.
func (rs *railSet) railDown(peer int, name string, out bool, err error) {
	e := rs.e
	log := e.cfg.Logger.With("rank", e.cfg.Rank, "peer", peer, "rail", name, "err", err)
	if !out || e.closing.Load() {
		log.Debug("tcp: rail ended")
		return
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		if lost := e.awaitLost(peer, closeLinger); errors.Is(lost, errBye) || e.closing.Load() {
			log.Debug("tcp: rail ended")
			return
		}
		rs.down.Add(1)
		log.Warn("tcp: rail down; its chunks go on the others")
	}()
}

func closeAll(conns []net.Conn) {
	for _, c := range conns {
		c.Close()
	}
}

// dialRail connects from p.Local to peer's rail p.Remote and runs the
// handshake as the dialer.
func (e *Endpoint) dialRail(peer int, p multirail.Addr) (net.Conn, error) {
	a, err := e.keyed(time.Now().Add(e.cfg.HandshakeTimeout))
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: e.cfg.HandshakeTimeout, LocalAddr: &net.TCPAddr{IP: net.ParseIP(p.Local)}}
	nc, err := d.DialContext(e.ctx, "tcp", p.Remote)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(e.ctx, func() { nc.Close() })
	defer stop()
	nc.SetDeadline(time.Now().Add(e.cfg.HandshakeTimeout))
	br := bufio.NewReaderSize(nc, hsBufSize)
	if err := a.dialAuth(nc, newDecoder(br, maxHSFrame), peer); err != nil {
		nc.Close()
		return nil, err
	}
	nc.SetDeadline(time.Time{})
	return withBuffered(nc, br), nil
}

// railAccept runs the acceptor's handshake on one of a peer's rails, reads
// its intro and files it with the others (gather). Failures close only
// this connection and are logged as refusals are.
func (e *Endpoint) railAccept(nc net.Conn, t *guard.Ticket) {
	defer e.wg.Done()
	defer t.Release()
	stop := context.AfterFunc(e.ctx, func() { nc.Close() })
	defer stop()
	rank, index, count, c, err := e.railHandshake(nc, t)
	if err == nil {
		err = e.rails.gather(rank, index, count, c)
	}
	if err != nil {
		nc.Close()
		if !e.closing.Load() {
			e.refusals.Log(slog.LevelWarn, "tcp: refused rail", "from", nc.RemoteAddr().String(), "err", err)
		}
	}
}

// railHandshake proves the dialer as accept does, then reads its intro.
func (e *Endpoint) railHandshake(nc net.Conn, t *guard.Ticket) (rank, index, count int, c net.Conn, err error) {
	start := time.Now()
	nc.SetDeadline(start.Add(e.cfg.HandshakeTimeout))
	br := bufio.NewReaderSize(nc, hsBufSize)
	h, p, nonceA, err := e.auth.acceptHello(nc, newDecoder(br, maxHSFrame))
	a := e.auth
	if err == nil {
		a, err = e.keyed(start.Add(e.cfg.HandshakeTimeout * 3 / 4))
	}
	var nonceD []byte
	if err == nil {
		rank, nonceD, err = a.acceptCheck(h, p, nonceA)
	}
	if err == nil && !t.Release() {
		err = errEvicted
	}
	if err != nil {
		e.auth.refuse(nc, refuseAuth, refusedAuth)
		return 0, 0, 0, nil, err
	}
	if err := a.acceptReply(nc, nonceD); err != nil {
		return 0, 0, 0, nil, err
	}
	var b [introSize]byte
	if _, err := io.ReadFull(br, b[:]); err != nil {
		return 0, 0, 0, nil, fmt.Errorf("tcp: rail of rank %d: reading its intro: %w", rank, err)
	}
	index, n := int(binary.LittleEndian.Uint32(b[:])), binary.LittleEndian.Uint32(b[4:])
	c = withBuffered(nc, br)
	if n&introSample != 0 {
		if err := multirail.Echo(c); err != nil {
			return 0, 0, 0, nil, fmt.Errorf("tcp: rail of rank %d: answering its sampling: %w", rank, err)
		}
	}
	nc.SetDeadline(time.Time{})
	return rank, index, int(n &^ introSample), c, nil
}

// gather files rail index of count from peer; the last one makes the
// Link that brings the peer's frames in.
func (rs *railSet) gather(peer, index, count int, c net.Conn) error {
	rp := &rs.peers[peer]
	rp.mu.Lock()
	defer rp.mu.Unlock()
	switch {
	case count < 1 || count > maxRails || index >= count:
		return fmt.Errorf("%w: rail %d of %d from rank %d, at most %d rails", ErrMalformed, index, count, peer, maxRails)
	case rp.closed || rp.in != nil:
		return fmt.Errorf("%w: rank %d opened rails twice, or was lost", ErrAuth, peer)
	case rp.inConns == nil:
		rp.inConns = make([]net.Conn, count)
	}
	if len(rp.inConns) != count || rp.inConns[index] != nil {
		return fmt.Errorf("%w: rail %d of %d from rank %d contradicts the earlier ones (%d rails)", ErrMalformed, index, count, peer, len(rp.inConns))
	}
	rp.inConns[index] = c
	for _, x := range rp.inConns {
		if x == nil {
			return nil
		}
	}
	return rs.startIn(peer, rp)
}

// startIn makes the Link of peer's gathered rails and starts delivering
// from it. rp.mu is held.
func (rs *railSet) startIn(peer int, rp *railPeer) error {
	conns := rp.inConns
	rp.inConns = nil
	pairs := make([]multirail.Addr, len(conns))
	for i, c := range conns {
		pairs[i] = multirail.Addr{Local: hostOf(c.LocalAddr().String()), Remote: c.RemoteAddr().String()}
		if rs.wrapIn != nil {
			conns[i] = rs.wrapIn(i, c)
		}
	}
	l, err := multirail.New(conns, equalProfiles(pairs), rs.linkConfig(peer, pairs, false))
	if err != nil {
		closeAll(conns)
		return err
	}
	ctx, stop := context.WithCancel(rs.e.ctx)
	rp.in, rp.inStop, rp.inDone = l, stop, make(chan struct{})
	rs.e.wg.Add(1)
	go rs.deliverLoop(ctx, peer, l, rp.inDone)
	return nil
}

// deliverLoop delivers the frames of peer's rails until ctx ends or the
// Link closes.
func (rs *railSet) deliverLoop(ctx context.Context, peer int, l *multirail.Link, done chan struct{}) {
	defer rs.e.wg.Done()
	defer close(done)
	for {
		m, err := l.Recv(ctx)
		if err != nil {
			return
		}
		rs.deliverRail(peer, m)
	}
}

// drain delivers what l holds already, without waiting.
func (rs *railSet) drain(peer int, l *multirail.Link) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for {
		m, err := l.Recv(ctx)
		if err != nil {
			return
		}
		rs.deliverRail(peer, m)
	}
}

// deliverRail delivers one frame from peer's rails. The multirail chunks
// are checksummed, so a frame that does not parse comes from a peer that
// breaks the protocol: it is logged and dropped.
func (rs *railSet) deliverRail(peer int, m []byte) {
	h, p, err := parseRailFrame(m, peer, rs.e.cfg.MaxPayload)
	if err != nil {
		rs.e.cfg.Logger.Error("tcp: dropping a frame from rails", "rank", rs.e.cfg.Rank, "peer", peer, "err", err)
		return
	}
	rp := &rs.peers[peer]
	rp.dmu.Lock()
	defer rp.dmu.Unlock()
	if !rp.gone && !rs.e.closing.Load() {
		rs.deliver(peer, h, p)
	}
}

// parseRailFrame decodes a frame that came over rails: a whole Data frame
// from peer, its payload within maxPayload.
func parseRailFrame(m []byte, peer, maxPayload int) (frame.Header, []byte, error) {
	if len(m) < headerSize {
		return frame.Header{}, nil, fmt.Errorf("%w: %d bytes from rails, shorter than a header", ErrMalformed, len(m))
	}
	h, n, err := parseHeader((*[headerSize]byte)(m[:headerSize]))
	switch {
	case err != nil:
		return h, nil, err
	case int(n) != len(m)-headerSize || int(n) > maxPayload:
		return h, nil, fmt.Errorf("%w: frame of %d bytes announces %d (limit %d)", ErrMalformed, len(m)-headerSize, n, maxPayload)
	case h.Kind != frame.Data || int(h.Source) != peer:
		return h, nil, fmt.Errorf("%w: %s frame from rank %d on the rails of rank %d", ErrMalformed, h.Kind, h.Source, peer)
	}
	return h, m[headerSize:], nil
}

// withBuffered returns nc, or, when the handshake's reader holds bytes
// beyond it, nc reading those first.
func withBuffered(nc net.Conn, br *bufio.Reader) net.Conn {
	if br.Buffered() == 0 {
		return nc
	}
	return &bufConn{Conn: nc, r: br}
}

type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(b []byte) (int, error) { return c.r.Read(b) }
