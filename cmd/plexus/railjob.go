package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/transport/multirail"
)

// A rail session joins ranks 0 and 1 of a job by every rail between
// their hosts: rank 1 listens on each of its addresses and tells rank 0,
// which pairs them with its own networks (multirail.Pair), draws a fresh
// secret for the rails' handshakes and sends it with the rails, all over
// the world's own authenticated messages. Then either side may connect,
// as often as it likes (a multirail.Link owns its connections, so every
// Link needs fresh ones).
type railSession struct {
	w      *comm.World
	rails  []multirail.Addr
	secret []byte
	lns    []net.Listener // rank 1: one per rail, in rail order
}

// Tags of the session's messages on the world.
const (
	tagRailListen = 9100 + iota
	tagRailPlan
	tagRailStep
)

// railPlan is rank 0's answer to rank 1's addresses.
type railPlan struct {
	Secret []byte           `json:"secret"`
	Rails  []multirail.Addr `json:"rails"`
}

// openRails makes the session; only limits the rails to those networks.
func openRails(ctx context.Context, w *comm.World, only []*net.IPNet) (*railSession, error) {
	if w.Size() < 2 {
		return nil, errors.New("a rail job needs 2 ranks, on two hosts (plexus run -n 2 --hostfile F)")
	}
	if w.Rank() < 2 && w.Transport(1-w.Rank()) != comm.TransportTCP {
		return nil, errors.New("ranks 0 and 1 share a host: a rail job needs them on two (one slot per host: --host H1,H2)")
	}
	s := &railSession{w: w}
	if w.Rank() == 1 {
		return s, s.listen(ctx, only)
	}
	if w.Rank() == 0 {
		return s, s.plan(ctx, only)
	}
	return s, nil
}

// parseRailArgs parses args into fs, which holds the flags of a rail
// command (rails its --rails value): the command's own arguments, or its
// rank verb's (isRank). only is the networks --rails names.
func parseRailArgs(c *cli, fs *flag.FlagSet, args []string, rails *string) (only []*net.IPNet, isRank bool, err error) {
	inner, isRank := rankArgs(args)
	if err := c.parse(fs, map[bool][]string{true: inner, false: args}[isRank]); err != nil {
		return nil, isRank, err
	}
	only, err = multirail.ParseNets(*rails)
	if err != nil {
		return nil, isRank, usagef("%v", err)
	}
	return only, isRank, nil
}

// joinRails is a rail job's rank: it joins the world and opens the rail
// session (only limiting the rails); done closes the session, then the
// world.
func joinRails(ctx context.Context, only []*net.IPNet) (w *comm.World, s *railSession, done func(), err error) {
	w, err = comm.Join(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err = openRails(ctx, w, only)
	if err != nil {
		w.Close()
		return nil, nil, nil, err
	}
	return w, s, func() { s.close(); w.Close() }, nil
}

// listen is rank 1's side of openRails.
func (s *railSession) listen(ctx context.Context, only []*net.IPNet) error {
	nets, err := multirail.LocalNets()
	if err != nil {
		return err
	}
	byAddr := map[string]net.Listener{}
	var addrs []string
	for _, n := range nets {
		if len(only) > 0 && !containedIn(only, n.IP) {
			continue
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(n.IP.String(), "0"))
		if err != nil {
			return fmt.Errorf("listening for rails on %s: %w", n.IP, err)
		}
		byAddr[ln.Addr().String()] = ln
		addrs = append(addrs, ln.Addr().String())
	}
	if err := railSend(ctx, s.w, 0, tagRailListen, addrs); err != nil {
		return err
	}
	var p railPlan
	if err := railRecv(ctx, s.w, 0, tagRailPlan, &p); err != nil {
		return err
	}
	s.secret, s.rails = p.Secret, p.Rails
	for _, r := range p.Rails {
		ln, ok := byAddr[r.Remote]
		if !ok {
			return fmt.Errorf("rank 0 planned a rail to %s, where this rank does not listen", r.Remote)
		}
		s.lns = append(s.lns, ln)
	}
	return nil
}

func containedIn(nets []*net.IPNet, ip net.IP) bool {
	for _, n := range nets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// plan is rank 0's side of openRails.
func (s *railSession) plan(ctx context.Context, only []*net.IPNet) error {
	var remote []string
	if err := railRecv(ctx, s.w, 1, tagRailListen, &remote); err != nil {
		return err
	}
	nets, err := multirail.LocalNets()
	if err != nil {
		return err
	}
	if s.rails, err = multirail.Pair(nets, remote, only); err != nil {
		return err
	}
	s.secret = make([]byte, 32)
	rand.Read(s.secret)
	if err := railSend(ctx, s.w, 1, tagRailPlan, railPlan{Secret: s.secret, Rails: s.rails}); err != nil {
		return err
	}
	if len(s.rails) == 0 {
		return fmt.Errorf("no rail between the hosts: rank 1 listens at %v, none on a network of this host's %v", remote, nets)
	}
	return nil
}

// connect opens and authenticates one connection per rail: rank 0 dials
// from each rail's local address, rank 1 accepts, refusing connections
// that fail the handshake (strangers) until the right one comes.
func (s *railSession) connect(ctx context.Context) ([]net.Conn, error) {
	conns := make([]net.Conn, len(s.rails))
	for k, r := range s.rails {
		var err error
		if s.w.Rank() == 0 {
			conns[k], err = s.dial(ctx, r)
		} else {
			conns[k], err = s.accept(ctx, s.lns[k])
		}
		if err != nil {
			for _, c := range conns[:k] {
				c.Close()
			}
			return nil, fmt.Errorf("rail %d (%s > %s): %w", k+1, r.Local, r.Remote, err)
		}
	}
	return conns, nil
}

func (s *railSession) dial(ctx context.Context, r multirail.Addr) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(r.Local)}, Timeout: 5 * time.Second}
	c, err := d.DialContext(ctx, "tcp", r.Remote)
	if err != nil {
		return nil, err
	}
	if err := multirail.Handshake(c, s.secret, true, 5*time.Second); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (s *railSession) accept(ctx context.Context, ln net.Listener) (net.Conn, error) {
	stop := context.AfterFunc(ctx, func() { ln.(*net.TCPListener).SetDeadline(time.Unix(1, 0)) })
	defer stop()
	for {
		c, err := ln.Accept()
		if err != nil {
			return nil, err
		}
		if err := multirail.Handshake(c, s.secret, false, 5*time.Second); err != nil {
			c.Close()
			continue
		}
		return c, nil
	}
}

// close closes rank 1's listeners.
func (s *railSession) close() {
	for _, ln := range s.lns {
		ln.Close()
	}
}

func railSend(ctx context.Context, w *comm.World, peer, tag int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.Send(ctx, peer, tag, b)
}

func railRecv(ctx context.Context, w *comm.World, peer, tag int, v any) error {
	st, err := w.Probe(ctx, peer, tag)
	if err != nil {
		return err
	}
	b := make([]byte, st.Len)
	if _, err := w.Recv(ctx, peer, tag, b); err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("rank %d sent a bad message (tag %d): %w", peer, tag, err)
	}
	return nil
}
