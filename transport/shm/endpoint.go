package shm

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/ring"
)

// Endpoint is one rank's end of the job's shared-memory segment: a ring
// to every other rank, created on first Send, a ring from every other rank,
// polled by one receive goroutine (or by a goroutine waiting in Poll), and a monitor goroutine that beats this
// rank's heartbeat and watches the peers'. Its methods are safe for
// concurrent use.
type Endpoint struct {
	cfg   Config
	seg   *segment
	out   []outbox
	peers []peer

	// rx is held by whoever receives — the receive goroutine or a Poll —
	// and guards in and rbuf, so Deliver and Lost are serial.
	rx   sync.Mutex
	in   []inbox
	rbuf []byte
	runP [][]byte // the payloads of a run for DeliverRun (recv.go)
	// bulkDirty lists the peers whose bulk buffer's consumed count the
	// current poll advanced but has not published (bulk.go).
	bulkDirty []int
	polling   atomic.Bool   // a goroutine Polls (poll.go)
	polls     atomic.Uint64 // Polls so far, for standAside to see them stop
	// passivePolls counts a passive Endpoint's polls instead (pollCount).
	passivePolls uint64
	resume       chan struct{} // PollDone or a loss ends standing aside

	pendingN    atomic.Int32 // outboxes with frames pending (queue.go)
	closing     atomic.Bool
	failOnce    sync.Once   // the segment faulted or shrank (fault.go)
	failed      atomic.Bool // set once failOnce is done
	lostPending atomic.Int32
	once        sync.Once
	stop        chan struct{}
	wg          sync.WaitGroup
	closeErr    error

	sleeps, wakes atomic.Uint64
	// pulling is held for reading by Pull and PullableBy, which read the
	// segment; Close takes it to wait them out before unmapping.
	pulling sync.RWMutex
	// canary is the word peers read to probe this rank (pull.go); it is
	// set before Open returns and lives as long as the Endpoint.
	canary      *uint64
	probeLogged atomic.Bool // a failed probe was logged
	// pids are the ranks' process ids when comm knows them (ExpectPIDs).
	pids atomic.Pointer[[]int]
	// bell is this rank's doorbell, where it sleeps (bell_linux.go).
	bell *doorbell
	// bellsOpen counts the peers' doorbells kept open (bell.go).
	bellsOpen atomic.Int32
}

// outbox is the sending end of the ring to one peer; mu serialises the
// writers, since the ring takes one frame at a time; small frames that
// find it taken wait in the combiner's queue instead (combine.go).
type outbox struct {
	mu      sync.Mutex
	r       *ring.Ring // nil until the first Send
	scratch []byte     // the frame's first ring message
	spare   [][]byte   // the queue's next array (mu)
	combiner
	pending    []byte      // frames Queue holds back, encoded (queue.go; mu)
	hasPending atomic.Bool // pending is not empty
	timer      *time.Timer // flushes pending after flushAfter (mu)
	armed      bool        // timer set and not fired yet (mu)
	bulk       bulkOut     // the bulk buffer to the peer (bulk.go; mu)
}

// peer is what this rank knows of another rank's liveness.
type peer struct {
	lost    atomic.Pointer[error] // set once, by whoever notices first
	watch   watch                 // monitor goroutine only
	awaited atomic.Bool           // awaitStalled asked AwaitJoin to watch it
	bell    atomic.Int32          // the peer's doorbell opened to ring (bell.go): fd+1, 0 not yet
	bellMu  sync.Mutex            // serialises opening it
}

// Stats counts how the receive goroutine waited.
type Stats struct {
	// Sleeps is the number of sleeps on its doorbell the receive goroutine
	// began.
	Sleeps uint64
	// Wakes is the number of wake-ups this rank's Sends issued to sleeping
	// peers.
	Wakes uint64
}

// Open validates cfg, creates or maps the job's segment, claims cfg.Rank
// in it and starts the receive and monitor goroutines. Every rank of the
// job on this host opens the same segment; whichever comes first creates
// it, the others wait up to cfg.AttachTimeout for it to be initialised.
func Open(cfg Config) (*Endpoint, error) {
	if !supported {
		return nil, ErrUnsupported
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	seg, err := openSegment(&cfg)
	if err != nil {
		return nil, err
	}
	bell, err := openDoorbell(bellPath(seg.path, cfg.Rank))
	if err != nil {
		seg.close(false)
		return nil, err
	}
	if err := seg.claim(cfg.Rank); err != nil {
		bell.release() // the rank may be another process's: its bell stays
		seg.close(false)
		return nil, err
	}
	e := newEndpoint(cfg, seg)
	e.bell = bell
	e.publishCanary()
	if cfg.NoPull {
		e.refusePulls()
	}
	e.probePeers()
	if !cfg.Passive {
		e.wg.Add(1)
		go e.receive()
	}
	e.wg.Add(1)
	go e.monitor()
	return e, nil
}

func newEndpoint(cfg Config, seg *segment) *Endpoint {
	e := &Endpoint{
		cfg: cfg, seg: seg, stop: make(chan struct{}), resume: make(chan struct{}, 1),
		out: make([]outbox, cfg.Size), in: make([]inbox, cfg.Size), peers: make([]peer, cfg.Size),
	}
	e.rbuf = make([]byte, e.maxMessage())
	return e
}

// maxMessage is the longest ring message: half the ring.
func (e *Endpoint) maxMessage() int { return e.cfg.Slots / 2 * ring.SlotPayload }

// Rank returns this Endpoint's rank.
func (e *Endpoint) Rank() int { return e.cfg.Rank }

// Path returns the segment file's path.
func (e *Endpoint) Path() string { return e.seg.path }

// Stats returns the waiting counters.
func (e *Endpoint) Stats() Stats { return Stats{Sleeps: e.sleeps.Load(), Wakes: e.wakes.Load()} }

// Close stops the receive and monitor goroutines (so no Deliver or Lost
// runs after it returns: it must not be called from them), fails pending
// and later Sends with ErrClosed, marks this rank closed in the segment —
// its peers report it lost once they have received everything it sent —
// and unmaps the segment. The last rank out (every rank joined, and each
// closed or dead) removes the file.
func (e *Endpoint) Close() error {
	e.once.Do(func() {
		e.flushAll(true) // Queue returned for these: they are sent
		e.closing.Store(true)
		for i := range e.out {
			e.out[i].mu.Lock()
			if t := e.out[i].timer; t != nil {
				t.Stop()
			}
			e.out[i].mu.Unlock()
		}
		close(e.stop)
		e.wakeRank(e.cfg.Rank)
		e.wg.Wait()
		// Wait out a Poll in progress (later ones see closing), then the
		// Sends and Pulls in progress (they see closing too).
		waitOut(&e.rx)
		for i := range e.out {
			waitOut(&e.out[i].mu)
		}
		waitOut(&e.pulling)
		atomic.StoreUint64(e.seg.state(e.cfg.Rank), stateClosed)
		for p := range e.cfg.Size {
			if p != e.cfg.Rank {
				e.wakeRank(p)
			}
		}
		e.closeBells()
		e.closeErr = e.seg.close(e.seg.allGone())
	})
	return e.closeErr
}

// waitOut returns once whoever held l when it was called has let go.
func waitOut(l sync.Locker) {
	l.Lock()
	//lint:ignore SA2001 an empty critical section is the point: it waits out the holder
	l.Unlock()
}

// markLost records that p is lost, once, and has the receive goroutine
// report it. Any goroutine may call it.
func (e *Endpoint) markLost(p int, cause error) {
	err := fmt.Errorf("%w: rank %d: %w", ErrPeerLost, p, cause)
	if e.peers[p].lost.CompareAndSwap(nil, &err) {
		e.lostPending.Add(1)
		e.wakeRank(e.cfg.Rank)
		e.resumeReceive()
	}
}

// lostErr returns the error p was lost with, or nil.
func (e *Endpoint) lostErr(p int) error {
	if err := e.peers[p].lost.Load(); err != nil {
		return *err
	}
	return nil
}
