package comm

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// Signals on links (coll.Signaler): a zero-payload notification per
// direction, kept as a count of the signals raised, which coll's barrier
// uses instead of empty messages (Smelt's zero-payload variants).
//
// To a peer whose transport keeps counters in memory both share
// (signaller: transport/shm, on the first SignalSlots(peer) channels), a signal
// is an atomic add there and a wait polls the peer's counter: no frame,
// no matching, no delivery. If the peer's receive goroutine sleeps, the
// signaller also sends a nudge — a link frame with flagSignal and Aux 1 —
// whose delivery rings the link's bell, because a member napping on its
// bell would otherwise not look at the counter until its nap ends; and
// the transport calls events.Idle before its receive goroutine sleeps,
// which rings every link's bell once, so a signal raised just before that
// is looked at too (Dekker's pattern: see transport/shm's Endpoint.SignalTx).
//
// To any other peer a signal is a link frame with flagSignal (Aux 0) that
// the receiver counts in the link's state and rings the bell for.
//
// Either way signals are ordered among themselves and not with the link's
// messages, which is what coll.Signaler promises.

// flagSignal on a commLinks Eager frame makes it a signal (Aux 0) or a
// nudge for a signal counted in shared memory (Aux 1).
const flagSignal uint8 = 2

// signaller is a transport that can raise and count signals to some peers
// in memory both share. SignalSlots returns how many counters there are
// per direction with peer, 0 when peer cannot be signalled so. SignalTx
// returns the counter that raising a signal towards peer on slot adds to,
// with the word that says whether peer's receiver sleeps (1: it should get
// a frame as well); Signals returns how many signals peer raised towards
// this rank on slot, with an error once peer is lost; SignalWord returns
// the word Signals reads. The words are harmless to touch after Close;
// nils mean no counters. None of them waits.
type signaller interface {
	SignalSlots(peer int) int
	Signals(peer, slot int) (uint64, error)
	SignalWord(peer, slot int) *atomic.Uint64
	SignalTx(peer, slot int) (count *atomic.Uint64, asleep *atomic.Uint32)
}

// shared returns the transport's counters for l, if it has them for l's
// peer and channel, caching them in *cache once found (routes only grow).
func (l *Link) shared(cache *signaller) signaller {
	if *cache == nil {
		if s := l.w.sig; s != nil && l.ch < s.SignalSlots(l.peer) {
			*cache = s
		}
	}
	return *cache
}

// Signal raises one signal towards the peer (coll.Signaler). It never
// waits for the peer. Only the link's sending goroutine may call it.
func (l *Link) Signal() error {
	if err := l.err(); err != nil {
		return err
	}
	if l.txCount == nil {
		if s := l.shared(&l.txSig); s != nil {
			l.txCount, l.txAsleep = s.SignalTx(l.peer, l.ch)
		}
	}
	if l.txCount != nil {
		l.txCount.Add(1)
		if l.txAsleep.Load() != 1 {
			return nil
		}
		return l.sendSignal(1)
	}
	return l.sendSignal(0)
}

// sendSignal sends a signal frame (aux 0) or a nudge (aux 1).
func (l *Link) sendSignal(aux uint64) error {
	h := frame.Header{Kind: frame.Eager, Comm: commLinks, Tag: int32(l.ch), Flags: flagSignal, Aux: aux}
	return l.signalErr(l.w.route(context.WithoutCancel(l.w.ctx), l.peer, h, nil))
}

// signalErr prefers the link's own failure to the transport's report,
// which, like a failed send, means the peer is lost.
func (l *Link) signalErr(err error) error {
	if err == nil {
		return nil
	}
	if lerr := l.err(); lerr != nil {
		return lerr
	}
	return fmt.Errorf("%w: signal to rank %d: %v", ErrPeerLost, l.peer, err)
}

// Signals returns how many signals the peer has raised towards this rank
// on the link so far (coll.Signaler). err is not nil once the link has
// failed; n still counts the signals raised before. Only the link's
// receiving goroutine may call it; it never waits.
//
// n is the sum of the signal frames counted here and, when the transport
// has counters for the peer, the peer's counter: each signal is counted in
// exactly one of them, so the sum is right even if the two ends disagreed
// for a while about whether the counters exist (while Join still learns
// which ranks share the host).
func (l *Link) Signals() (n uint64, err error) {
	err = l.err() // first: whatever came before the failure is in n
	n = l.c.signals.Load()
	if s := l.shared(&l.rxSig); s != nil {
		m, serr := s.Signals(l.peer, l.ch)
		n += m
		if err == nil && serr != nil {
			err = l.signalErr(serr)
		}
	}
	return n, err
}

// SignalWord returns the shared counter of the peer's signals on the link,
// which a waiter polls before it calls Signals (coll.SignalWord), or nil
// when the link signals by frames. Call it from the receiving goroutine,
// or before that goroutine starts.
func (l *Link) SignalWord() *atomic.Uint64 {
	if s := l.shared(&l.rxSig); s != nil {
		return s.SignalWord(l.peer, l.ch)
	}
	return nil
}

// onSignal counts a signal frame or takes a nudge, and rings the bell.
func (c *linkChan) onSignal(h frame.Header) {
	if h.Aux == 0 {
		c.signals.Add(1)
	}
	c.ring()
}

// ringBells rings the bell of every link, so that members napping on
// them look at their signal counters once more (events.Idle).
func (l *links) ringBells() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.chans {
		c.ring()
	}
}
