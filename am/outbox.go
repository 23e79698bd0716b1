package am

import (
	"sync"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

// packet is one buffer on its way to a destination. A packet with done
// set is a Flush's marker: the sender closes done once everything queued
// before it has been handed to comm.
type packet struct {
	b    []byte
	done chan struct{}
}

// outbox is the aggregation buffer towards one destination and the
// goroutine that sends its packets in order.
//
// Concurrency contract: append, post, appendRaw, block, unblock, poll,
// push, flush and fail hold mu, and tryPoll holds it if it can take it at
// once; any goroutine may call them. Packets enter q under mu, so
// their order in q is the order their messages were appended; only run
// receives from q.
type outbox struct {
	e    *Engine
	dest int

	mu      sync.Mutex // held while blocking on q, so packets stay in order under backpressure
	buf     []byte
	n       int       // messages in buf
	reply   bool      // buf holds a reply to a Call
	other   bool      // buf holds a message that is not a request: a reply or an envelope
	oldest  time.Time // when buf's first message was appended
	gen     uint64    // buffers sent so far: names the one filling now
	waiting int       // Calls in buf whose callers block on their replies
	seen    uint64    // this outbox's slot in e.appended
	err     error     // set once: the destination is lost or the engine closed
	q       chan packet

	// The packets run has started and not yet waited for, and their
	// requests: state of run's goroutine alone, kept to be reused.
	started []packet
	reqs    []*comm.Request
}

func newOutbox(e *Engine, dest int) *outbox {
	return &outbox{e: e, dest: dest, q: make(chan packet, 64)}
}

// append adds m to the buffer, in an envelope from src to dest when
// wrap, and sends the buffer if it is full. It returns the generation of
// the buffer m went into, for block.
func (o *outbox) append(m message, wrap bool, src, dest int) (uint64, error) {
	o.mu.Lock()
	if err := o.ready(); err != nil {
		o.mu.Unlock()
		return 0, err
	}
	if wrap {
		o.buf, o.other = appendRelay(o.buf, src, dest, m), true
	} else {
		o.buf = appendMessage(o.buf, m)
	}
	gen := o.gen
	o.added(m.kind.isReply())
	o.mu.Unlock()
	return gen, nil
}

// post is append for a Post straight to dest, the busy sender's case,
// without a message to copy through the calls.
func (o *outbox) post(id ID, args []byte) error {
	o.mu.Lock()
	if err := o.ready(); err != nil {
		o.mu.Unlock()
		return err
	}
	if id < 0x80 && len(args) < 0x80 {
		o.buf = append(append(o.buf, byte(kindPost), byte(id), byte(len(args))), args...)
	} else {
		o.buf = appendLong(o.buf, message{kind: kindPost, handler: id, payload: args})
	}
	o.n++
	o.e.appended.note(&o.seen)
	if len(o.buf) >= o.e.th.bytes {
		o.sendLocked(causeSize)
	}
	o.mu.Unlock()
	return nil
}

// block notes that the caller of a Call appended to buffer gen now
// blocks on its reply, and sends the buffer if every message in it is
// such a Call (or, idle, the sender is idle); unblock takes the note back
// when the caller stops waiting first. When buffer gen is already sent,
// only idle counts.
func (o *outbox) block(gen uint64, now time.Time, idle bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return
	}
	if o.gen == gen {
		o.waiting++
	}
	b := buffered{bytes: len(o.buf), age: now.Sub(o.oldest), idle: idle, messages: o.n, waiting: o.waiting}
	if c, ok := decide(b, o.e.th); ok {
		o.sendLocked(c)
	}
}

func (o *outbox) unblock(gen uint64) {
	o.mu.Lock()
	if o.gen == gen && o.waiting > 0 {
		o.waiting--
	}
	o.mu.Unlock()
}

// appendRaw adds the encoded envelopes of chunk, which deliver checked,
// one at a time, so that no packet outgrows Config.maxPacket.
func (o *outbox) appendRaw(chunk []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for len(chunk) > 0 {
		if err := o.ready(); err != nil {
			return err
		}
		m, rest, _ := nextMessage(chunk)
		o.buf, o.other = append(o.buf, chunk[:len(chunk)-len(rest)]...), true
		_, _, inner, _ := unwrap(m, o.e.Size())
		o.added(inner.kind.isReply())
		chunk = rest
	}
	return nil
}

// ready readies the buffer for a message, or returns why it cannot take
// one. o.mu is held.
func (o *outbox) ready() error {
	if o.err != nil {
		return o.err
	}
	if len(o.buf) == 0 {
		o.begin()
	}
	return nil
}

// begin starts an empty buffer's clock and wakes the ticker. o.mu is
// held.
func (o *outbox) begin() {
	o.oldest = o.e.now()
	if o.buf == nil {
		o.buf = o.e.getBuf()
	}
	select {
	case o.e.wake <- struct{}{}:
	default:
	}
}

// added counts a message just appended and sends the buffer if it is
// full. o.mu is held.
func (o *outbox) added(reply bool) {
	o.n++
	o.reply, o.other = o.reply || reply, o.other || reply
	o.e.appended.note(&o.seen)
	if c, ok := decide(buffered{bytes: len(o.buf)}, o.e.th); ok {
		o.sendLocked(c)
	}
}

// poll sends the buffer if decide says so at time now, and reports
// whether bytes still wait in it. idle counts only when the buffer holds
// a reply, if onlyReplies: a destination that ran every handler it had
// sends its replies, not the rest.
func (o *outbox) poll(now time.Time, idle, onlyReplies bool) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.pollLocked(now, idle && (o.reply || !onlyReplies))
}

// pollLocked is poll's decision; o.mu is held.
func (o *outbox) pollLocked(now time.Time, idle bool) bool {
	b := buffered{bytes: len(o.buf), age: now.Sub(o.oldest), idle: idle}
	if c, ok := decide(b, o.e.th); ok && o.err == nil {
		o.sendLocked(c)
	}
	return len(o.buf) > 0
}

// tryPoll is poll for the ticker, which comes back every tick anyway:
// when another goroutine holds the lock it skips the outbox and reports
// it busy rather than queue behind the holder. The holder is appending,
// or blocked on a full q (the transport is behind), so the buffer is
// going anyway; a ticker queued on the lock made every append after it
// take the mutex's slow path until the ticker ran, which on a rank with
// one processor is not before the appender blocks.
func (o *outbox) tryPoll(now time.Time, idle bool) bool {
	if !o.mu.TryLock() {
		return true
	}
	defer o.mu.Unlock()
	return o.pollLocked(now, idle)
}

// flush sends the buffer and returns a channel closed once every packet
// queued so far has been handed to comm (or dropped, when the destination
// is lost or the engine closed).
func (o *outbox) flush(c cause) <-chan struct{} {
	done := make(chan struct{})
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		close(done)
		return done
	}
	if len(o.buf) > 0 {
		o.sendLocked(c)
	}
	o.q <- packet{done: done}
	return done
}

// push sends the buffer if it holds messages, without waiting (Push).
func (o *outbox) push() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil && len(o.buf) > 0 {
		o.sendLocked(causeFlush)
	}
}

func (o *outbox) sendLocked(c cause) {
	o.e.stats.count(c, len(o.buf), o.n, o.e.rt.remote(o.dest))
	var flags byte
	if o.other {
		flags = flagOther
	}
	o.q <- packet{b: append(o.buf, flags)}
	o.buf, o.n, o.reply, o.other, o.waiting = nil, 0, false, false, 0
	o.gen++
}

// fail stops the outbox with err; later appends return it.
func (o *outbox) fail(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		o.err = err
		o.buf, o.n, o.reply, o.other, o.waiting = nil, 0, false, false, 0
		o.gen++
	}
}
