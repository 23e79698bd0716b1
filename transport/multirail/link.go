package multirail

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/internal/wait"
	"github.com/plexus-hpc/plexus/rail"
)

// Link is one end of a multirail link: messages sent on it are split
// among its rails and put back together, in order, at the other end.
//
// Concurrency contract: Send, Recv, Release, Stats and Close may be
// called from any goroutines at once. Messages from one goroutine's
// Sends arrive in the order sent; Sends from several goroutines are
// ordered as they take the Link's lock. Every field below mu is guarded
// by it.
type Link struct {
	cfg   Config
	rails []*railConn
	wg    sync.WaitGroup
	stop  chan struct{}
	rbufs bufPool // buffers to receive into (bufpool.go); its own lock

	mu       sync.Mutex
	sendCond *sync.Cond // window space, a message's end, failure
	recvCond *sync.Cond // a message in the inbox, inbox space, failure
	nextMsg  uint64
	tick     uint64 // the deadline watch's ticks so far (deadline.go)
	// unsettled is the messages posted, in order, from the oldest not
	// yet wholly acknowledged on; inflight is the sum of their lengths.
	// That is what the peer may hold as partial messages (a message
	// acknowledged whole waits there for those before it), so keeping it
	// within the window keeps the peer's reassembly within its own.
	unsettled []*sendMsg
	inflight  int
	// queue is the messages with bytes not yet posted, in order: a long
	// message goes a slice at a time (Link.pump), and the messages
	// posted behind it wait here with it.
	queue []*sendMsg
	snap  []rail.Rail // snapshot's scratch
	idle  idlePick    // pickWhole's memo
	free  []*sendMsg  // recycled records of eager messages (recycle.go)
	asm   *assembly
	// inbox is the messages complete and not yet received.
	inbox   fifo[[]byte]
	inBytes int
	ready   atomic.Int32 // inbox.len(), for pollers to read without mu
	dead    atomic.Bool  // err is set
	// sendSpin: a Send spins for its acknowledgements (one at a time).
	sendSpin atomic.Bool
	hot      atomic.Int32 // the rail a poll last read from: see pollRails
	// spinner: the pollers' spins (spin), which learn whether the peer
	// shares their CPU. Wakes: a poll hands what it reads to waiting
	// Sends and Recvs.
	spinner wait.Spinner
	err     error // set when every rail is down or the Link closed
	stats   Stats
}

// pendChunk is a chunk sent and not yet acknowledged: queued on rail at
// posted (zero for an eager chunk, which Link.learn skips), predicted to
// be acknowledged after expect by the rail's slowdown then, slow
// (Link.learn compares with that one: with many chunks in flight the
// slowdown moves between a chunk's post and its acknowledgement), late
// from the watch's tick due on.
type pendChunk struct {
	h      header
	data   []byte
	rail   int
	posted time.Time
	expect time.Duration
	slow   float64
	due    uint64
	msg    *sendMsg
}

// sendMsg is a message waiting for its chunks' acknowledgements: data
// from next on is not posted yet, left is its chunks posted and not
// acknowledged; notify, if set, is Post's done. Guarded by Link.mu.
type sendMsg struct {
	data   []byte
	id     uint64
	size   int
	next   int
	left   int
	err    error
	done   bool
	notify func(error)
	// eager: a Send that does not wait for the acknowledgement; direct:
	// what its caller writes after post (railConn.claim).
	eager  bool
	direct []directWrite
	// A small message's chunk, direct write and copy go in the message
	// itself (pendOf, claimFor, postEager): one allocation a message,
	// none once the Link recycles its records (recycle.go).
	first     pendChunk
	firstUsed bool
	direct1   [1]directWrite
	inline    [inlineLen]byte
	// buf is the copy of an eager message longer than inline, kept with
	// the record when it is recycled; holds counts who still use a
	// recycled record (recycle.go), 0 for one never recycled, and is
	// atomic: Send lets go of it without mu.
	buf   []byte
	holds int32
}

// inlineLen is the longest eager message copied into its sendMsg.
const inlineLen = 64

// directWrite is jobs that a caller writes on a rail it claimed.
type directWrite struct {
	rc *railConn
	js []job
}

// finish ends m with err, once. The caller holds Link.mu.
func (m *sendMsg) finish(err error) {
	if m.done {
		return
	}
	m.done, m.err = true, err
	if m.notify != nil {
		m.notify(err)
	}
}

// Stats counts a Link's traffic.
type Stats struct {
	Chunks, Bytes []int64   // sent on each rail, resent ones included
	Resent        int64     // chunks sent again after their rail failed
	Duplicates    int64     // chunks received twice (and dropped)
	RailsDown     []int     // the failed rails, in the order they failed
	Slowdown      []float64 // each rail's delivery time against its profile, learnt from acks
}

// New makes a Link over conns, one per rail, each already connected (and
// authenticated: Handshake) to the same peer, whose Link lists the rails
// in the same order; profiles[i] predicts rail i (Sample). A nil conn is
// refused, and so is a profile rail.NewProfile would refuse (the error
// wraps rail.ErrBadProfile); the Link keeps each profile as NewProfile
// makes it, samples sorted by size, so the caller's may be in any order
// and may change afterwards. The Link owns the conns from now on: on
// Linux it closes each one that is a socket, keeping a duplicate of its
// descriptor out of Go's netpoller, so no goroutine may still be reading
// or writing one (an Echo must have returned).
func New(conns []net.Conn, profiles []rail.Profile, cfg Config) (*Link, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(conns) == 0 || len(conns) != len(profiles) {
		return nil, fmt.Errorf("multirail: %d rails and %d profiles: want as many, at least one", len(conns), len(profiles))
	}
	profiles, err := checkRails(conns, profiles)
	if err != nil {
		return nil, err
	}
	l := &Link{cfg: cfg, stop: make(chan struct{})}
	l.rbufs.max = 2 * cfg.Window
	l.asm = newAssembly(cfg.Window, func(n int) []byte { return l.rbufs.get(n, false) })
	l.sendCond, l.recvCond = sync.NewCond(&l.mu), sync.NewCond(&l.mu)
	l.spinner.Wakes = true
	l.stats.Chunks, l.stats.Bytes = make([]int64, len(conns)), make([]int64, len(conns))
	l.snap = make([]rail.Rail, len(conns))
	for i, c := range conns {
		l.rails = append(l.rails, newRailConn(i, c, profiles[i], l.stop, &l.rbufs))
	}
	for _, rc := range l.rails {
		l.wg.Add(2)
		go l.writeLoop(rc)
		go l.readLoop(rc)
	}
	l.wg.Add(1)
	go l.watch(tickLen(cfg.AckTimeout))
	return l, nil
}

// checkRails refuses a nil conn (its reader would crash the process) and
// a profile that NewProfile would not make (the split cannot predict
// with it). It returns the profiles as NewProfile makes them: samples in
// size order with times that never fall, which the predictions assume,
// and the Link's own copies, which its goroutines read while the caller
// may change its slices.
func checkRails(conns []net.Conn, profiles []rail.Profile) ([]rail.Profile, error) {
	out := make([]rail.Profile, len(profiles))
	for i, c := range conns {
		if c == nil {
			return nil, fmt.Errorf("multirail: rail %d has no connection (nil)", i)
		}
		p, err := rail.NewProfile(profiles[i].Name, profiles[i].Samples)
		if err != nil {
			return nil, fmt.Errorf("multirail: rail %d: %w", i, err)
		}
		out[i] = p
	}
	return out, nil
}

// Stats returns a copy of the Link's counters.
func (l *Link) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Chunks, s.Bytes = append([]int64(nil), s.Chunks...), append([]int64(nil), s.Bytes...)
	s.RailsDown = append([]int(nil), s.RailsDown...)
	for _, rc := range l.rails {
		s.Slowdown = append(s.Slowdown, rc.slowdown)
	}
	return s
}

// Close closes every rail; Sends and Recvs waiting fail with ErrClosed.
func (l *Link) Close() error {
	l.mu.Lock()
	if l.err == nil {
		l.err = ErrClosed
	}
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.failWaiters(ErrClosed)
	l.mu.Unlock()
	for _, rc := range l.rails {
		rc.shut()
	}
	l.wg.Wait()
	for _, rc := range l.rails {
		rc.release()
	}
	l.rbufs.drop()
	return nil
}

// failWaiters ends every Send waiting with err and wakes everyone.
// The caller holds mu.
func (l *Link) failWaiters(err error) {
	l.dead.Store(true)
	for _, rc := range l.rails {
		for _, p := range rc.pend.takeAll() {
			p.msg.finish(err)
		}
		rc.unacked = 0
	}
	for _, m := range l.queue {
		m.finish(err)
	}
	l.unsettled, l.inflight, l.queue = nil, 0, nil
	l.sendCond.Broadcast()
	l.recvCond.Broadcast()
}

// Recv returns the next message, waiting until one is complete, ctx
// ends, or the Link fails (every rail down: ErrRailsDown) or closes.
// With Config.Poll it first reads the rails itself for a short spin.
func (l *Link) Recv(ctx context.Context) ([]byte, error) {
	if l.cfg.Poll {
		l.spin(ctx, l.recvReady)
	}
	l.mu.Lock()
	if l.inbox.len() > 0 {
		defer l.mu.Unlock()
		return l.pop(), nil // no wait to arm a wake-up for
	}
	l.mu.Unlock()
	return l.recvWait(ctx)
}

// recvWait is Recv's wait for a message, woken when ctx ends.
func (l *Link) recvWait(ctx context.Context) ([]byte, error) {
	if ctx.Done() != nil { // a context that never ends needs no wake-up
		stop := context.AfterFunc(ctx, func() {
			l.mu.Lock()
			l.recvCond.Broadcast()
			l.mu.Unlock()
		})
		defer stop()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.inbox.len() == 0 {
		if l.err != nil {
			return nil, l.err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l.recvCond.Wait()
	}
	return l.pop(), nil
}

// pop removes and returns the inbox's first message. The caller holds
// mu.
func (l *Link) pop() []byte {
	m := l.inbox.pop()
	l.inBytes -= len(m)
	l.ready.Store(int32(l.inbox.len()))
	l.recvCond.Broadcast() // a reader may wait for inbox space
	return m
}
