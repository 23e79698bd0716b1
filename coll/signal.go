package coll

// Invariants:
//
// A signal is a zero-payload notification along one direction of a link
// (Smelt's zero-payload reduce and broadcast, which make its barrier). Each
// direction has a monotonic count of the signals raised on it, written only
// by the sending end and never reset; the receiving end keeps its own count
// of the signals it has consumed, seen. A receiver's k-th wait on a
// direction waits for the count to reach k, so there is no ABA: a count
// only grows, and a signal is consumed by exactly one wait.
//
// Signals are ordered among themselves but not with the link's messages:
// a message sent after a signal may be received before it, and the other
// way round. Barriers that use signals stay correct when they are
// interleaved with broadcasts and reductions on the same links because
// every member runs the team's collectives in the same program order, and
// each kind of traffic is consumed in program order on its own channel:
//
//   - A barrier's sends and waits on a direction are signals only, and the
//     other collectives' are messages only (a team uses signals for every
//     barrier or for none, decided once in NewTeam), so a message is never
//     taken for a signal or a signal for a message.
//   - On one direction the sender raises, and the receiver awaits, the same
//     number of signals per barrier, fixed by the trees, in the same order
//     (reduction phase before broadcast phase, even where both trees use
//     the direction). So the receiver's k-th wait is satisfied only once
//     the sender has made its k-th raise, which it makes at the matching
//     point of the same barrier: after every member below it has arrived.
//   - Messages keep their own order on their own channel, as before, since
//     barriers no longer put anything there.
//
// The raise is a sequentially consistent atomic add and the wait an atomic
// load, so everything a member did before its barrier happens before
// everything any member does after it.

import (
	"context"
	"sync/atomic"
	"unsafe"
)

// Signaler is implemented by links that carry signals besides messages: a
// zero-payload notification per direction, kept as a count of the signals
// raised so far rather than queued, so it never fills and needs no
// buffer. Signals are ordered among themselves but not with the link's
// messages. When every link of a team implements Signaler, Barrier uses
// signals instead of zero-length messages.
type Signaler interface {
	// Signal raises the count of signals towards the other end by one. It
	// never waits. Only this end's sender may call it.
	Signal() error
	// Signals returns how many signals the other end has raised towards
	// this one so far; the count only grows. err is not nil once the link
	// has failed, with n still the signals raised before the failure. It
	// never waits. Only this end's receiver may call it.
	Signals() (n uint64, err error)
}

// SignalWord is implemented by Signalers that can show the count of the
// signals raised towards this end as a word in this process's memory (a
// counter in a segment shared with the peer, say). A waiter then polls the
// word in a tight loop first, as it does on in-process links, and calls
// Signals only once that fails — so Signals still decides, and reports
// failures. SignalWord returns nil when the link has no such word.
type SignalWord interface {
	SignalWord() *atomic.Uint64
}

// signalWords is implemented by links whose signal counts are plain
// words in memory shared by both ends (the default rings), so that a
// waiter polls the word itself rather than calling Signals.
type signalWords interface {
	// signalWords returns the count this end raises and the one it reads.
	signalWords() (tx, rx *atomic.Uint64)
}

// cacheLine is the size of a cache line, the unit of false sharing.
const cacheLine = 64

// signalLine is a signal count alone on its cache line: only the sender
// writes it, only the receiver polls it, and nothing else shares the line
// to be invalidated by either. A 64-byte object is 64-byte aligned (the
// allocator's 64-byte size class); TestSignalLineSize checks the size.
type signalLine struct {
	n atomic.Uint64
	_ [cacheLine - unsafe.Sizeof(atomic.Uint64{})]byte
}

// signal is one member's view of the signals on one link: the link's
// Signaler, its words when it has them, and the signals consumed. Every
// copy of the member's end shares it (through a pointer), so waits for
// the reduction and broadcast phases on a shared edge count together.
//
// A signal fills whole cache lines: the member writes seen every barrier,
// and a neighbouring object of another member's on the same line would
// make that write, and every poll here, a miss on both CPUs.
//
// Invariants: seen is touched only by the member's goroutine; tx and rx
// are both nil or both set; fast is rx, or the link's SignalWord, or nil.
type signal struct {
	signalState
	_ [cacheLine - unsafe.Sizeof(signalState{})%cacheLine]byte // never empty: a trailing empty field would be padded
}

type signalState struct {
	link   Signaler
	tx, rx *atomic.Uint64
	fast   *atomic.Uint64 // polled first by await
	seen   uint64
}

// newSignal returns the signal state of a link, or nil if it has none.
func newSignal(l Link) *signal {
	sl, ok := l.(Signaler)
	if !ok {
		return nil
	}
	s := &signal{signalState: signalState{link: sl}}
	if w, ok := l.(signalWords); ok {
		s.tx, s.rx = w.signalWords()
		s.fast = s.rx
	} else if w, ok := l.(SignalWord); ok {
		s.fast = w.SignalWord()
	}
	return s
}

// raise raises one signal on e. Only e's member may call it.
func (m *Member) raise(e end) error {
	if s := e.sig; s.tx != nil {
		s.tx.Add(1)
		m.notify(e)
		return nil
	}
	err := e.sig.link.Signal()
	m.notify(e)
	return m.fail(linkErr(err))
}

// await consumes the next signal on e, waiting for it under the spin
// policy. The first polls of a link with words are loads in a tight loop:
// no call, no check, as a hand-off between spinning CPUs is the fast
// path. Only e's member may call it.
func (m *Member) await(ctx context.Context, e end) error {
	return m.awaitSignal(ctx, e.sig)
}

// awaitSignal is await on s, a link's signal or a member's release.
func (m *Member) awaitSignal(ctx context.Context, s *signal) error {
	s.seen++
	if rx, want := s.fast, s.seen; rx != nil {
		for range m.policy.Flat {
			if rx.Load() >= want {
				return nil
			}
		}
	}
	return m.awaitSlow(ctx, s)
}

// awaitSlow is await once the tight polls have failed: it polls under
// the spinner, which pauses, yields and naps, checking ctx and the team.
func (m *Member) awaitSlow(ctx context.Context, s *signal) error {
	w := m.newSpinner()
	w.every = signalProgress
	for i := 0; ; i++ {
		if s.fast != nil && s.fast.Load() >= s.seen {
			w.settle()
			return nil
		}
		// With a fast word, ask the link (frames, failures) only every
		// few polls: the word is where the signal almost always lands.
		if s.fast == nil || i%signalAsk == 0 {
			ok, err := s.arrived()
			if ok || err != nil {
				w.settle()
			}
			if ok {
				return nil
			}
			if err != nil {
				return m.fail(linkErr(err))
			}
		}
		if w.idle() {
			if err := m.check(ctx); err != nil {
				w.settle()
				return m.fail(err)
			}
		}
	}
}

// signalAsk is how often a wait with a fast word asks the link itself.
const signalAsk = 8

// signalProgress is how often a signal wait progresses the transport:
// every few polls, since a signal may come by a frame (then progress
// delivers it) or by a counter in memory shared with the peer (then
// progress only delivers other traffic, and costs more than a look at the
// counter).
const signalProgress = 4

// arrived reports whether the awaited signal has been raised; err is the
// link's failure, which matters only while it has not. A signal raised
// before a link failed is still consumed, as a queued message would be.
func (s *signal) arrived() (bool, error) {
	if s.rx != nil {
		return s.rx.Load() >= s.seen, nil
	}
	n, err := s.link.Signals()
	return n >= s.seen, err
}
