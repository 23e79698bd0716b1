package shm

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Signals: besides its ring, each ordered pair of ranks has SignalSlots
// counters in the segment, each alone on its cache line. A signal is an
// atomic add by the sender and a load by the receiver — no frame, no
// receive goroutine — which is what a barrier between ranks on one host
// needs (Smelt's zero-payload messages). A counter only grows, so a
// receiver that remembers how many it has consumed never mistakes an old
// signal for a new one.
//
// Nobody watches the counters: a receiver polls them. One that stops
// polling to sleep must be woken some other way, so Signal reports
// whether the peer's receive goroutine sleeps (its sleep word, read after
// the add: Dekker's pattern, as for frames in layout.go), and the caller
// can then send a frame; Config.Idle runs each time the receive goroutine
// is about to sleep, after it announced so, so that a receiver can look
// at its counters once more.

// SignalSlots is how many signal counters each ordered pair of ranks has.
const SignalSlots = 16

// Signal raises this rank's counter slot towards peer by one. asleep
// reports that peer's receive goroutine was asleep after the add; nothing
// on peer then notices the signal until something wakes it. Any goroutine
// may call Signal; each slot towards a peer should have one signalling
// goroutine at a time if the signals are to keep an order.
func (e *Endpoint) Signal(peer, slot int) (asleep bool, err error) {
	if err := e.checkSignal(peer, slot); err != nil {
		return false, err
	}
	if err := e.sendable(peer); err != nil {
		return false, err
	}
	atomic.AddUint64(e.seg.signal(e.cfg.Rank, peer, slot), 1)
	return atomic.LoadUint32(e.seg.wait(peer)) == 1, nil
}

// Signals returns how many signals peer has raised towards this rank on
// slot so far. err wraps ErrPeerLost once peer is lost; n then still
// counts every signal peer raised (the counter outlives the process).
// After Close it returns ErrClosed.
// Any goroutine may call it; it never waits.
func (e *Endpoint) Signals(peer, slot int) (n uint64, err error) {
	if err := e.checkSignal(peer, slot); err != nil {
		return 0, err
	}
	if err = e.sendable(peer); err == ErrClosed {
		return 0, err
	}
	return atomic.LoadUint64(e.seg.signal(peer, e.cfg.Rank, slot)), err
}

// SignalWord returns the counter Signals(peer, slot) reads, for a
// receiver that polls it in a tight loop before it calls Signals (which
// alone reports a lost peer). The word stays readable after Close, when
// it reads zero: Close leaves harmless memory in the segment's place.
func (e *Endpoint) SignalWord(peer, slot int) (*atomic.Uint64, error) {
	if err := e.checkSignal(peer, slot); err != nil {
		return nil, err
	}
	return (*atomic.Uint64)(unsafe.Pointer(e.seg.signal(peer, e.cfg.Rank, slot))), nil
}

// SignalTx returns the counter Signal(peer, slot) raises and peer's sleep
// word, which is 1 while peer's receive goroutine sleeps: what a sender
// that signals often needs to do Signal's work without the call (an
// atomic add on count, then a load of asleep). Both stay harmless to touch
// after Close.
func (e *Endpoint) SignalTx(peer, slot int) (count *atomic.Uint64, asleep *atomic.Uint32, err error) {
	if err := e.checkSignal(peer, slot); err != nil {
		return nil, nil, err
	}
	count = (*atomic.Uint64)(unsafe.Pointer(e.seg.signal(e.cfg.Rank, peer, slot)))
	asleep = (*atomic.Uint32)(unsafe.Pointer(e.seg.wait(peer)))
	return count, asleep, nil
}

func (e *Endpoint) checkSignal(peer, slot int) error {
	switch {
	case peer < 0 || peer >= e.cfg.Size || peer == e.cfg.Rank:
		return fmt.Errorf("shm: rank %d cannot signal rank %d (size %d)", e.cfg.Rank, peer, e.cfg.Size)
	case slot < 0 || slot >= SignalSlots:
		return fmt.Errorf("shm: signal slot %d outside [0, %d)", slot, SignalSlots)
	}
	return nil
}
