package tcp

import (
	"errors"
	"fmt"
	"syscall"
	"time"
)

// Reaching a peer that nothing was exchanged with yet. Connections open
// on first use and only an open one carries heartbeats, so a rank that
// died before the pair ever talked would never be reported lost, and
// whoever waits for its first frame would wait for ever. Reach dials such
// a peer in the background. A dial that connects hands the peer to the
// heartbeats; a peer whose port refuses the dial (nothing listens there:
// its process is gone or closed its Endpoint, as a rank listens before it
// publishes its address) is lost once it has refused for reachRefused; a
// peer that cannot be reached otherwise (a dead host times out, a refusal
// by its acceptor) is lost once reachBudget has passed since the first
// try, which covers the dial path's own retries.

// Reach retry timing.
const (
	// reachRefused is how long a peer's port must keep refusing before
	// the peer is lost: a few tries, well within the second that a rank
	// waiting on a dead peer should wait.
	reachRefused = 300 * time.Millisecond
	// reachFirstWait and reachMaxWait bound the pause between tries.
	reachFirstWait = 50 * time.Millisecond
	reachMaxWait   = time.Second
)

// Reach makes sure that rank is reported lost (Config.Lost) once its
// process is gone, even if no frame was ever exchanged with it: unless a
// connection is open, it dials rank in the background, so that the
// heartbeats cover the connection; a rank that cannot be reached is
// reported lost (see above). Reach does not block and always reports
// true; each call may start a dial, so a caller calls it once per peer,
// before it waits on that peer.
func (e *Endpoint) Reach(rank int) bool {
	if rank < 0 || rank >= e.cfg.Size || rank == e.cfg.Rank {
		return true
	}
	p := &e.peers[rank]
	if p.c.Load() != nil {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lost != nil || e.closing.Load() {
		return true // reported already, or no longer watched
	}
	// Close sets closing before it takes each peer's lock to close it,
	// and waits for wg after that, so this Add happens before the Wait.
	e.wg.Add(1)
	go e.reach(rank)
	return true
}

// reach dials rank until a connection is open or rank is lost.
func (e *Endpoint) reach(rank int) {
	defer e.wg.Done()
	start, wait := time.Now(), reachFirstWait
	var refusedSince time.Time
	for {
		_, err := e.connTo(e.ctx, rank)
		if err == nil || e.closing.Load() {
			return
		}
		now := time.Now()
		if !errors.Is(err, syscall.ECONNREFUSED) {
			refusedSince = time.Time{}
		} else if refusedSince.IsZero() {
			refusedSince = now
		}
		if reachFailed(now, start, refusedSince, e.reachBudget()) {
			e.unreachable(rank, err)
			return
		}
		if !e.pause(wait) {
			return
		}
		wait = min(2*wait, reachMaxWait)
	}
}

// reachFailed reports whether a peer whose dials failed since start
// (refused since refusedSince, if not zero) is lost at now.
func reachFailed(now, start, refusedSince time.Time, budget time.Duration) bool {
	if !refusedSince.IsZero() && now.Sub(refusedSince) >= min(reachRefused, budget) {
		return true
	}
	return now.Sub(start) >= budget
}

// reachBudget is how long a peer may stay unreachable: as long as a
// connected one may stay silent, and at least a handshake.
func (e *Endpoint) reachBudget() time.Duration {
	return max(e.cfg.PeerTimeout, e.cfg.HandshakeTimeout)
}

// pause waits d, or reports false if the Endpoint closes first.
func (e *Endpoint) pause(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-e.ctx.Done():
		return false
	}
}

// unreachable marks rank lost for good with the last dial's error and
// reports it, unless a connection came in meanwhile or the peer was lost
// or the Endpoint closed already. Once lost is set no connection is
// installed (claim, installDialled), so Lost is reported once.
func (e *Endpoint) unreachable(rank int, cause error) {
	p := &e.peers[rank]
	err := fmt.Errorf("%w: rank %d cannot be reached: %w", ErrPeerLost, rank, cause)
	p.mu.Lock()
	ok := p.c.Load() == nil && p.lost == nil && !e.closing.Load()
	if ok {
		p.lost = err
	}
	p.mu.Unlock()
	if ok {
		e.cfg.Lost(rank, err)
	}
}
