package multirail

import (
	"fmt"
	"sort"
)

// assembly puts messages back together from chunks that arrive over
// several rails in any order, some perhaps twice (a chunk resent after
// its rail failed may have arrived before the failure), and gives back
// complete messages in order, each exactly once. It is pure and not safe
// for concurrent use.
//
// Invariants: every message below next was delivered, or waits in whole
// for ready, and is forgotten;
// a partial message's spans are disjoint and sorted, and have is their
// total length; pending is the sum of the partial messages' totals.
type assembly struct {
	next    uint64
	partial map[uint64]*partMsg
	pending uint64
	window  uint64 // the most bytes of partial messages held
	// whole is the messages that came whole and in turn since the last
	// ready: they skip partial (no record to make, keep or drop).
	whole [][]byte
	// alloc returns a slice of n bytes for a split message, its contents
	// any: every byte is written before the message is ready.
	alloc func(n int) []byte
}

type partMsg struct {
	buf   []byte
	spans []span // received, by offset
	have  uint64
}

type span struct{ off, len uint64 }

// newAssembly returns an assembly holding at most window bytes of
// partial messages, which takes their buffers from alloc (nil: make).
func newAssembly(window int, alloc func(n int) []byte) *assembly {
	if alloc == nil {
		alloc = func(n int) []byte { return make([]byte, n) }
	}
	return &assembly{partial: map[uint64]*partMsg{}, window: uint64(window), alloc: alloc}
}

// add takes the data chunk h with its bytes, which it may keep (the
// message's only chunk becomes the message); kept says whether it did,
// so that the caller may reuse data otherwise. It reports dup for a
// chunk already received (whose bytes it ignores), and an error for one
// that contradicts what came before: another total for the message, a
// span overlapping another, or more partial bytes than the window.
func (a *assembly) add(h header, data []byte) (dup, kept bool, err error) {
	if h.msg < a.next {
		return true, false, nil
	}
	if h.msg == a.next && h.whole() && (len(a.partial) == 0 || a.partial[h.msg] == nil) {
		a.whole = append(a.whole, data)
		a.next++
		return false, true, nil
	}
	m, err := a.message(h)
	if err != nil {
		return false, false, err
	}
	s := span{h.off, uint64(h.len)}
	if m.have == 0 && h.whole() {
		m.buf, m.spans, m.have = data, append(m.spans, s), s.len // whole: no copy
		return false, true, nil
	}
	i := sort.Search(len(m.spans), func(i int) bool { return m.spans[i].off >= s.off })
	if i < len(m.spans) && m.spans[i] == s {
		return true, false, nil
	}
	if (i < len(m.spans) && s.off+s.len > m.spans[i].off) || (i > 0 && m.spans[i-1].off+m.spans[i-1].len > s.off) {
		return false, false, fmt.Errorf("%w: chunk [%d, +%d) of message %d overlaps one received", ErrMalformed, s.off, s.len, h.msg)
	}
	m.spans = append(m.spans[:i], append([]span{s}, m.spans[i:]...)...)
	copy(m.buf[s.off:], data)
	m.have += s.len
	return false, false, nil
}

// message returns h's partial message, making it on its first chunk.
func (a *assembly) message(h header) (*partMsg, error) {
	if m, ok := a.partial[h.msg]; ok {
		if uint64(len(m.buf)) != h.total {
			return nil, fmt.Errorf("%w: message %d of %d bytes, earlier %d", ErrMalformed, h.msg, h.total, len(m.buf))
		}
		return m, nil
	}
	if a.pending+h.total > a.window {
		return nil, fmt.Errorf("%w: message %d of %d bytes would hold %d bytes of partial messages, over the window of %d",
			ErrMalformed, h.msg, h.total, a.pending+h.total, a.window)
	}
	m := &partMsg{}
	if h.off != 0 || uint64(h.len) != h.total {
		m.buf = a.alloc(int(h.total))
	}
	a.partial[h.msg] = m
	a.pending += h.total
	return m, nil
}

// ready removes the complete messages from next on and appends them to
// out, in order.
func (a *assembly) ready(out [][]byte) [][]byte {
	out = append(out, a.whole...)
	clear(a.whole)
	a.whole = a.whole[:0]
	for {
		m, ok := a.partial[a.next]
		if !ok || m.have != uint64(len(m.buf)) || len(m.spans) == 0 {
			return out
		}
		out = append(out, m.buf)
		delete(a.partial, a.next)
		a.pending -= uint64(len(m.buf))
		a.next++
	}
}
