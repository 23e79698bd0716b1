package multirail

import (
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// railConn is one rail: its connection, its profile, the queue its
// writer drains, and what its readers share. unacked, pend, down,
// slowdown and onWire are guarded by Link.mu; jobs, spare, writing, urgent, ackArmed and
// lazy by qmu; dec, rerr and got by rmu; spins and spinsOver are atomic;
// readFrom is the reader goroutine's alone.
type railConn struct {
	i int
	// sock is the rail's socket out of the netpoller (sock_linux.go);
	// where it is nil (not a socket, not Linux) conn is the rail, read
	// with blocking reads and never polled.
	sock     *sock
	conn     net.Conn
	profile  rail.Profile
	unacked  int      // bytes of the chunks on the rail not yet acknowledged
	pend     pendList // those chunks, oldest first (pending.go)
	down     bool
	slowdown float64 // learnt from acks: see Link.learn
	// onWire is when the oldest chunk unacknowledged began to leave: its
	// post on an idle rail, or the acknowledgement of the chunk before
	// (Link.snapshot); zero where unknown (an eager chunk's post).
	onWire time.Time
	stop   <-chan struct{}

	qmu      sync.Mutex
	jobs     []job
	spare    []job // the last write's jobs, emptied, for jobs to reuse
	writing  bool  // a goroutine is writing: the writer, or a caller (direct)
	urgent   bool  // jobs holds one that must not wait for ackDelay
	ackArmed bool
	lazy     int // lazy acknowledgements in jobs
	ackTimer *time.Timer
	wake     chan struct{} // capacity 1: urgent jobs were added
	wbuf     []byte        // the current writer's: see writeJobs

	rmu  sync.Mutex
	dec  decoder
	rerr error
	got  bool // drain read something: see Link.pollRails
	// spins counts the spins that polled the rail; spinsOver is the count
	// when pollDone last said they were over, readFrom the count when the
	// reader last stopped standing aside (poll.go).
	spins     atomic.Uint64
	spinsOver atomic.Uint64
	readFrom  uint64
	resume    chan struct{} // capacity 1: a poller is done
	// asideTimer is the reader's while it stands aside, made once: a
	// timer made at every standing aside was an allocation (and garbage)
	// every few messages where spins end now and then.
	asideTimer *time.Timer
}

// Lazy acknowledgements (a small whole message's: Link.received) wait
// for a write on their rail to go with, for at most ackDelay, and no
// more than lazyMax of them wait: the next goes at once, with them.
//
// ackDelay is far shorter than any deadline, and long against a round
// trip, so that a ping-pong's answers take the acknowledgements along
// and its timer fires seldom: a firing costs little CPU but wakes a
// thread, which where the pollers keep the CPUs busy takes one from them,
// and the round trips it lands on made much of the Link's tail
// (docs/benchmarks.md, "Rails: no timer fires in a ping-pong"). lazyMax
// bounds what a one-way stream of small messages, whose receiver never
// writes, leaves unacknowledged meanwhile: the sender's records of them
// (recycle.go's freeRecords) and their bytes in its window.
const (
	ackDelay = 20 * time.Millisecond
	lazyMax  = freeRecords
)

func newRailConn(i int, c net.Conn, p rail.Profile, stop <-chan struct{}, pool *bufPool) *railConn {
	rc := &railConn{i: i, conn: c, profile: p, slowdown: 1, stop: stop, dec: newDecoder(pool),
		wake: make(chan struct{}, 1), resume: make(chan struct{}, 1)}
	rc.sock = newSock(c)
	rc.ackTimer = time.AfterFunc(time.Hour, rc.ackDue)
	rc.ackTimer.Stop()
	rc.asideTimer = time.NewTimer(time.Hour)
	rc.asideTimer.Stop()
	return rc
}

// job is a header, and for data a chunk's bytes, to write.
type job struct {
	h    header
	data []byte
}

// push queues j for the writer without blocking. An urgent job wakes
// the writer; any other (a lazy acknowledgement) waits for the next write
// on the rail, or for ackDelay, or until lazyMax wait.
func (rc *railConn) push(j job, urgent bool) {
	rc.qmu.Lock()
	rc.jobs = append(rc.jobs, j)
	if !urgent {
		rc.lazy++
		urgent = rc.lazy > lazyMax
	}
	wake := urgent && !rc.writing
	rc.urgent = rc.urgent || urgent
	if !urgent && !rc.ackArmed {
		rc.ackArmed = true
		rc.ackTimer.Reset(ackDelay)
	}
	rc.qmu.Unlock()
	if wake {
		rc.signal()
	}
}

func (rc *railConn) signal() {
	select {
	case rc.wake <- struct{}{}:
	default:
	}
}

// ackDue is the lazy acknowledgements' timer: they go now.
func (rc *railConn) ackDue() {
	rc.qmu.Lock()
	rc.ackArmed = false
	wake := len(rc.jobs) > 0 && !rc.writing
	rc.urgent = rc.urgent || len(rc.jobs) > 0
	rc.qmu.Unlock()
	if wake {
		rc.signal()
	}
}

// claim makes the caller the rail's writer for jobs queued and j, if no
// goroutine is writing: it returns what to write (writeDirect), or nil,
// having queued j for the writer. A small message then leaves from its
// sender's goroutine, with no wake-up of the writer.
func (rc *railConn) claim(j job) []job {
	rc.qmu.Lock()
	defer rc.qmu.Unlock()
	if rc.writing {
		rc.jobs = append(rc.jobs, j)
		rc.urgent = true
		return nil
	}
	return append(rc.takeLocked(), j)
}

// takeLocked removes and returns the queued jobs, and marks the rail
// being written. qmu must be held.
func (rc *railConn) takeLocked() []job {
	js := rc.jobs
	rc.jobs, rc.spare, rc.writing, rc.urgent, rc.lazy = rc.spare, nil, true, false, 0
	// An armed ack timer stays armed: stopping and arming it again for
	// every message costs more than its firing now and then for nothing.
	return js
}

// take is takeLocked for the writer goroutine: nil if another goroutine
// is writing (it hands back with done) or nothing is queued.
func (rc *railConn) take() []job {
	rc.qmu.Lock()
	defer rc.qmu.Unlock()
	if rc.writing || len(rc.jobs) == 0 {
		return nil
	}
	return rc.takeLocked()
}

// done ends the write of js (what take or claim returned), keeping its
// array for the queue to reuse, so that queueing and writing allocate
// nothing once the queue has grown; jobs queued meanwhile that must not
// wait go to the writer goroutine.
func (rc *railConn) done(js []job) {
	clear(js) // the chunks' bytes are the senders', not the queue's
	rc.qmu.Lock()
	rc.spare = js[:0]
	rc.writing = false
	wake := rc.urgent
	rc.qmu.Unlock()
	if wake {
		rc.signal()
	}
}

// smallWrite is the most bytes written by copying them into one buffer:
// for small messages and acknowledgements a plain write of one buffer
// costs less than building a vectored one.
const smallWrite = 16 << 10

// writeJobs writes js in one write; hdrs is scratch space. Only the
// rail's current writer (railConn.writing) may call it: it uses wbuf.
func (rc *railConn) writeJobs(js []job, hdrs []byte) ([]byte, error) {
	total := 0
	for _, j := range js {
		total += headerLen + len(j.data)
	}
	if total <= smallWrite {
		b := rc.wbuf[:0]
		for _, j := range js {
			b = append(b, make([]byte, headerLen)...)
			j.h.put(b[len(b)-headerLen:])
			b = append(b, j.data...)
		}
		rc.wbuf = b
		return hdrs, rc.write(b)
	}
	hdrs = hdrs[:0]
	for _, j := range js {
		hdrs = append(hdrs, make([]byte, headerLen)...)
		j.h.put(hdrs[len(hdrs)-headerLen:])
	}
	bufs := make(net.Buffers, 0, 2*len(js))
	for k, j := range js {
		bufs = append(bufs, hdrs[k*headerLen:(k+1)*headerLen])
		if len(j.data) > 0 {
			bufs = append(bufs, j.data)
		}
	}
	return hdrs, rc.writev(bufs)
}

// write writes b on the rail.
func (rc *railConn) write(b []byte) error {
	if rc.sock != nil {
		return rc.sock.write(b)
	}
	_, err := rc.conn.Write(b)
	return err
}

// writev writes bufs on the rail, consuming them.
func (rc *railConn) writev(bufs net.Buffers) error {
	if rc.sock != nil {
		return rc.sock.writev(bufs)
	}
	_, err := bufs.WriteTo(rc.conn)
	return err
}

// shut ends the rail's connection: its reader and writer, and any
// caller writing on it, fail and return. The descriptor itself is
// released by release, once nothing can use it.
func (rc *railConn) shut() {
	if rc.sock != nil {
		rc.sock.shutdown()
		return
	}
	rc.conn.Close()
}

// release frees what the rail holds. Only Link.Close may call it, once
// the rail's goroutines are done.
func (rc *railConn) release() {
	if rc.sock != nil {
		rc.sock.close()
	}
	rc.ackTimer.Stop()
}

// writeDirect writes what claim returned, from the caller's goroutine.
func (l *Link) writeDirect(rc *railConn, js []job) {
	_, err := rc.writeJobs(js, nil)
	rc.done(js)
	if err != nil {
		l.railFailed(rc.i, fmt.Errorf("multirail: rail %d: writing: %w", rc.i, err))
	}
}

// writeLoop writes the rail's queue, everything queued at once in one
// vectored write, so that small messages and acks travel together: each
// rail has its own goroutine, and chunks of one message go out in
// parallel (the paper's multicore offload).
func (l *Link) writeLoop(rc *railConn) {
	defer l.wg.Done()
	var hdrs []byte
	for {
		select {
		case <-l.stop:
			return
		case <-rc.wake:
		}
		js := rc.take()
		if len(js) == 0 {
			continue
		}
		var err error
		hdrs, err = rc.writeJobs(js, hdrs)
		rc.done(js)
		if err != nil {
			l.railFailed(rc.i, fmt.Errorf("multirail: rail %d: writing: %w", rc.i, err))
			return
		}
	}
}
