package coll

// Members of an in-process team pass their trees' messages through
// mailboxes: each member writes what it sends down the broadcast tree
// into one mailbox that all its broadcast children read, and what it
// sends up the reduction tree into one that its reduction parent reads.
// A message of up to mailData bytes shares its cache line with the word
// that announces it, so a hop costs the one line transfer the hand-off
// needs: a parent writes a broadcast once for k children, who pull the
// line in parallel, where a link per child would cost k writes in a row,
// each waiting for the line; and a parent polls its children's lines
// with independent loads, whose misses overlap, where a ring's receive
// reads its slot and then acknowledges it. On many cores the per-child
// rings made wide trees' broadcasts and reductions an order of magnitude
// slower than their barriers (docs/benchmarks.md, "Many cores").
// Longer messages still go on the links; the mailbox then carries a mark
// that says so, in the message's place, so that every message keeps its
// place in the order.
//
// Invariants: a mailbox has one writer, its member's goroutine (at the
// root, the broadcast lock's holder), and fixed readers. The writer's
// k-th message (k from 1) goes to slot k mod mailSlots: first the data,
// then an atomic store of the slot's word, k<<8 | code, where code is the
// length or mailOnLink. A reader takes messages in order, the k-th once
// the word of its slot says k, and publishes how many it has taken in an
// acknowledgement word of its own (broadcast children) or its parent's
// count of gathered reductions (reduction children, who are all gathered
// together). The writer writes message k only once every reader has
// acknowledged k - mailSlots, so a slot is never rewritten while a reader
// may still read it, and sequence numbers only grow, so there is no ABA.
// The atomic store and load order the data: what the writer wrote before
// its store, a reader that loaded the store sees.
//
// Sleeping keeps door.go's protocol: a writer notifies its readers after
// its store, and a reader that acknowledges wakes a writer sleeping for
// room (Member.took).

import (
	"sync/atomic"
	"unsafe"
)

const (
	// mailSlots is how many messages a mailbox holds unacknowledged: a
	// broadcast root may run that many broadcasts ahead of its slowest
	// child before it waits.
	mailSlots = 8
	// mailData is the largest message a slot holds.
	mailData = cacheLine - 8
	// mailOnLink is the code of a message that went on the link.
	mailOnLink = 0xff
)

// mailSlot is one message: its word and data on one cache line.
type mailSlot struct {
	word atomic.Uint64 // seq<<8 | code
	data [mailData]byte
}

// mailbox is a member's slots for one direction of its trees.
type mailbox struct {
	slots [mailSlots]mailSlot
}

func (b *mailbox) slot(seq uint64) *mailSlot { return &b.slots[seq%mailSlots] }

// mailOut is the writer's end of a mailbox. It is owned by the writer.
type mailOut struct {
	box    *mailbox
	sent   uint64           // messages written
	acks   []*atomic.Uint64 // the readers' acknowledgements
	minAck uint64           // the least acknowledgement last seen
}

// hasRoom reports whether message sent+1 may be written: every reader
// has taken message sent+1-mailSlots. It reads the readers' words only
// when the last look does not already say so.
func (o *mailOut) hasRoom() bool {
	if o.sent < o.minAck+mailSlots {
		return true
	}
	lo := o.sent
	for _, a := range o.acks {
		lo = min(lo, a.Load())
	}
	o.minAck = lo
	return o.sent < o.minAck+mailSlots
}

// post writes message sent+1: p, which must fit a slot, or when onLink
// the mark of a message sent on the link. The caller has checked
// hasRoom.
func (o *mailOut) post(p []byte, onLink bool) {
	o.sent++
	s := o.box.slot(o.sent)
	code := uint64(mailOnLink)
	if !onLink {
		code = uint64(copy(s.data[:], p))
	}
	s.word.Store(o.sent<<8 | code)
}

// mailIn is a reader's end of a mailbox. It is owned by the reader.
type mailIn struct {
	box  *mailbox
	seen uint64 // messages taken
}

// peek returns the code of the next message, and whether it has come.
func (i *mailIn) peek() (code int, ok bool) {
	w := i.box.slot(i.seen + 1).word.Load()
	if w>>8 != i.seen+1 {
		return 0, false
	}
	return int(w & 0xff), true
}

// data returns the next message's first n bytes, valid until take.
func (i *mailIn) data(n int) []byte { return i.box.slot(i.seen + 1).data[:n] }

// take consumes the next message.
func (i *mailIn) take() { i.seen++ }

// mailSlotSize is a slot's size; TestMailSlotSize checks it is a line.
const mailSlotSize = unsafe.Sizeof(mailSlot{})
