package coll

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// The twin is the in-memory reference transport: a mutex, two slice
// queues and two signal counts per link, with the ring's ordering,
// capacity and truncation semantics, signals (Signaler), and fault
// injection. Tests drive the same collective code over it as over rings
// (Config.transport), and make links fail on purpose.

// errInjected is the failure a twin link reports after its fault fires.
var errInjected = errors.New("coll: injected link fault")

// twinConfig describes the links a twin transport makes.
type twinConfig struct {
	// Slots is how many messages each direction holds before Send waits;
	// zero means DefaultSlots.
	Slots int
	// MaxMessage is the longest payload; zero means DefaultMaxMessage.
	MaxMessage int
	// FailAfter, when not nil, gives for the link between members a and b
	// the number of messages and signals it carries (both directions
	// together) before it fails; zero or less means never. After the fault the link's
	// queued messages can still be received; then every call returns
	// errInjected.
	FailAfter func(a, b int) int
}

// newTwin returns a transport of twin links.
func newTwin(cfg twinConfig) transport {
	if cfg.Slots <= 0 {
		cfg.Slots = DefaultSlots
	}
	if cfg.MaxMessage <= 0 {
		cfg.MaxMessage = DefaultMaxMessage
	}
	return func(a, b int) (Link, Link, error) {
		x, y := newTwinPair(cfg.Slots, cfg.MaxMessage)
		if cfg.FailAfter != nil {
			x.p.failAfter = cfg.FailAfter(a, b)
		}
		return x, y, nil
	}
}

// newTwinPair returns the two ends of a twin link whose directions hold
// slots messages of up to max bytes each.
func newTwinPair(slots, max int) (a, b *twinLink) {
	p := &twinPair{slots: slots, max: max}
	return &twinLink{p: p, side: 0}, &twinLink{p: p, side: 1}
}

// twinPair is the state both ends share.
//
// Invariants: every field is guarded by mu; q[d] holds the messages
// towards end d, oldest first, each a private copy; len(q[d]) <= slots;
// sig[d] counts the signals raised towards end d and never decreases;
// sent counts messages and signals alike, so that a fault also ends
// barriers; once err is set it never changes.
type twinPair struct {
	mu        sync.Mutex
	q         [2][][]byte
	sig       [2]uint64
	slots     int
	max       int
	sent      int
	failAfter int
	err       error
}

// twinLink is one end of a twin link. Any goroutine may call its methods;
// the mutex makes them safe, though a team uses each end from one
// goroutine per direction, as it would a ring.
type twinLink struct {
	p    *twinPair
	side int
}

// Fail breaks the link at once with err (errInjected when nil), as if its
// fault had fired.
func (l *twinLink) Fail(err error) {
	if err == nil {
		err = errInjected
	}
	l.p.mu.Lock()
	if l.p.err == nil {
		l.p.err = err
	}
	l.p.mu.Unlock()
}

// TrySend queues a copy of p for the other end unless that direction is
// full.
func (l *twinLink) TrySend(p []byte) (bool, error) {
	s := l.p
	if len(p) > s.max {
		return false, fmt.Errorf("%w: %d bytes, link carries %d", ErrTooLarge, len(p), s.max)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trip()
	switch q := &s.q[1-l.side]; {
	case s.err != nil:
		return false, s.err
	case len(*q) >= s.slots:
		return false, nil
	default:
		*q = append(*q, append([]byte{}, p...))
		s.sent++
		return true, nil
	}
}

// trip fires the fault once the link has carried failAfter messages.
// The caller holds mu.
func (s *twinPair) trip() {
	if s.failAfter > 0 && s.sent >= s.failAfter && s.err == nil {
		s.err = errInjected
	}
}

// Signal raises the count of signals towards the other end, unless the
// link has failed. Like a message it counts towards the fault.
func (l *twinLink) Signal() error {
	s := l.p
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trip(); s.err != nil {
		return s.err
	}
	s.sig[1-l.side]++
	s.sent++
	return nil
}

// Signals returns the count of signals raised towards this end, and the
// link's failure if it has failed.
func (l *twinLink) Signals() (uint64, error) {
	s := l.p
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sig[l.side], s.err
}

// Send queues a copy of p, waiting while the link is full.
func (l *twinLink) Send(ctx context.Context, p []byte) error {
	var s spinner
	for {
		if ok, err := l.TrySend(p); ok || err != nil {
			return err
		}
		if err := s.waitCtx(ctx); err != nil {
			return err
		}
	}
}

// TryRecv takes the oldest message for this end, if any, into buf and
// returns its length. As on a ring, a message longer than buf is still
// consumed: buf receives its prefix, n is the full length, ok is true and
// err wraps ErrTruncated.
func (l *twinLink) TryRecv(buf []byte) (n int, ok bool, err error) {
	s := l.p
	s.mu.Lock()
	defer s.mu.Unlock()
	q := &s.q[l.side]
	if len(*q) == 0 {
		return 0, false, s.err
	}
	m := (*q)[0]
	(*q)[0] = nil
	*q = (*q)[1:]
	if copy(buf, m) < len(m) {
		return len(m), true, fmt.Errorf("%w: %d-byte message, %d-byte buffer", ErrTruncated, len(m), len(buf))
	}
	return len(m), true, nil
}

// Recv waits for the oldest message for this end and takes it into buf.
func (l *twinLink) Recv(ctx context.Context, buf []byte) (int, error) {
	var s spinner
	for {
		if n, ok, err := l.TryRecv(buf); ok || err != nil {
			return n, err
		}
		if err := s.waitCtx(ctx); err != nil {
			return 0, err
		}
	}
}
