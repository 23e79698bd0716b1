package comm

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/comm/match"
	"github.com/plexus-hpc/plexus/transport/frame"
)

// AnySource in a receive or probe matches a message from any rank.
const AnySource = match.AnySource

// AnyTag in a receive or probe matches a message with any tag.
const AnyTag = match.AnyTag

// commWorld is the communicator id of the world's own traffic.
const commWorld = 0

// World is one rank's end of a job: its place among the ranks and its
// tagged point-to-point traffic with them.
//
// Concurrency contract: every method may be called by any number of
// goroutines at once, unless the world is serialized (Config.Serialized:
// one at a time). The transport's reader calls deliver and lost; in a
// serialized world only the caller's polls do (World.adoptSerial).
//
// Invariants: unexpected counts the cost (eagerCost, rtsCost) of the
// messages and announcements from other ranks stored in the table. Its
// eager part never exceeds Config.UnexpectedBudget, and nor does the whole
// unless announcements took a peer's credit below zero: each peer only
// sends eagerly what it has credit for, charges every announcement to its
// credit (chargeRTS), and credit comes back only after a stored message is
// taken.
type World struct {
	cfg Config
	t   transport
	// sig, poll, until, queue, eagerT, flush and puller are t as a
	// signaller, poller, untilPoller, queuer, eagerSender, flusher and
	// puller, or nil: looked up once, as an interface assertion per
	// message costs more than an empty poll.
	sig   signaller
	poll  poller
	until untilPoller
	// scoped is t as a scopePoller, or nil; scopedPolls counts the
	// scoped polls of its links (Link.ProgressIn).
	scoped      scopePoller
	scopedPolls atomic.Uint32
	queue       queuer
	eagerT      eagerSender
	flush       flusher
	puller      puller
	// isOpen is set, and opened closed, once t is (deliverOpened).
	isOpen atomic.Bool
	opened chan struct{}
	table  *match.Table[*msg, *Request]
	peers  []peer
	sent   sentCache // completed eager sends, shared (sentCache)
	seq    atomic.Uint64
	batch  int64 // owed credit is returned once it reaches this
	ctx    context.Context
	cancel context.CancelFunc
	closed atomic.Bool
	once   sync.Once
	probes prober
	// spinning is set while one goroutine polls the transport, in
	// Request.spin or Link.Progress; the others do not poll. That poller
	// also runs the delivery path's deferred work (World.later).
	spinning atomic.Bool
	// sleepers counts the goroutines blocked in Request.await; while
	// there are more than maxSpinSleepers, nobody spins (Request.spin).
	sleepers atomic.Int64
	// waitingBytes is the data, as bytesAhead estimates it, that Waitalls
	// wait for besides the request each spins on: it lengthens the spin.
	waitingBytes atomic.Int64
	watch        watchSet // the sleepers' requests, for their contexts' ends
	acts         deferred
	// crowded is set, before the world is handed out, when this host
	// runs more ranks than it has CPUs (known only to Join).
	crowded bool
	// via names the transport to each rank (Transport), set by Join
	// before the world is handed out.
	via []string
	// hosts names every rank's host (hostKey), set by Join before the
	// world is handed out; nil in worlds Join did not make (Hosts).
	hosts []string
	links links // collective channels, apart from the tagged traffic (Link)
	slabs slabs // where Isend and Irecv requests come from (slabs)
	// offers holds the pull offers (offerKey → *offer) that arrived and
	// are neither taken nor revoked yet (offer).
	offers sync.Map

	unexpected atomic.Int64

	// serial is set, before the world is handed out, when it runs
	// Serialized (World.adoptSerial); sleeper is then its transport.
	serial  bool
	sleeper sleeper
	// spare is a serialized world's pooled request kept for its next
	// blocking call (newRequest, release); only its caller touches it.
	spare *Request
	// The fields below are rarely touched, and last so that those above
	// keep their places in the cache lines the hot paths read.
	//
	// reacher is t as a reacher, or nil (World.reach).
	reacher reacher
	// reachedAll is set once every peer is reached (reachAll).
	reachedAll atomic.Bool
	// nlost counts the other ranks lost; anyLost is set, to the last
	// loss, once every other rank is (World.countLost).
	nlost   atomic.Int32
	anyLost atomic.Pointer[error]
	// lanes counts the collective area's lanes handed out (World.Area).
	lanes atomic.Int32
}

// peer is the state kept per remote rank.
//
// Invariants: sends holds rendezvous sends waiting for their CTS, recvs the
// matched rendezvous receives waiting for data, both keyed by the sender's
// transfer id and guarded by mu; once lost is set no entry is added.
// credit (what this rank may still send eagerly to the peer) and owed
// (what this rank will return to the peer) are atomic; owedHere belongs
// to the delivery path.
type peer struct {
	mu     sync.Mutex
	sends  map[uint64]*Request
	recvs  map[uint64]*Request
	lost   error
	dead   atomic.Bool
	reach  atomic.Uint32 // whether the transport watches the peer (World.reach)
	credit atomic.Int64
	owed   atomic.Int64
	// taken is the credit a serialized world's caller moved out of credit
	// to spend without atomics (spendSerial); only that caller touches it.
	taken int64
	// owedHere gathers what the delivery path owes before it is added
	// to owed (oweDelivered); only the delivery path, serial per peer,
	// touches it.
	owedHere int64
	// run holds the receives deliverRun took; only the delivery path
	// touches it.
	run []*Request
	// link is the link channel with this peer that last got a frame
	// (deliverLink): a collective's frames mostly come on one, and the
	// channel table's lock and map cost more than the rest of a delivery.
	// Only the delivery path, serial per peer, touches it.
	link *linkChan
}

// openWorld returns a world for cfg on the transport that open creates.
func openWorld(cfg Config, open opener) (*World, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := newWorld(cfg.withDefaults())
	t, err := open(events{Deliver: w.deliverOpened, Lost: w.lostOpened, Idle: w.links.ringBells,
		Opened: w.deliver, DeliverRun: w.deliverRunOpened, DeliverEager: w.deliverEagerOpened,
		OpenedEager: w.deliverEager})
	if err != nil {
		w.cancel()
		close(w.opened)
		return nil, fmt.Errorf("comm: open transport: %w", err)
	}
	w.t = t
	w.useCalls(t)
	w.reacher, _ = t.(reacher)
	if s, ok := t.(sleeper); ok && s.Passive() && !cfg.Serialized {
		// Nobody would receive while its goroutines sleep on their requests.
		t.Close()
		w.cancel()
		close(w.opened)
		return nil, fmt.Errorf("comm: a passive transport (it receives only when polled) needs Config.Serialized")
	}
	w.adoptSerial()
	w.isOpen.Store(true)
	close(w.opened)
	return w, nil
}

// useCalls looks t up as the optional interfaces the world calls: t is
// its transport, or what a mux reaches every rank through (adoptDirect).
func (w *World) useCalls(t transport) {
	w.sig, _ = t.(signaller)
	w.poll, _ = t.(poller)
	w.until, _ = t.(untilPoller)
	w.scoped, _ = t.(scopePoller)
	w.queue, _ = t.(queuer)
	w.flush, _ = t.(flusher)
	w.eagerT, _ = t.(eagerSender)
	w.puller, _ = t.(puller)
}

// adoptDirect makes the world send and poll through the transport its mux
// reaches every rank through, when there is one (mux.Direct): each call
// then skips the mux's route lookup and a dynamic call. Frames the world
// sends with a Header, and Close, still go through the mux. It runs
// before the world is handed out (join, once the routes are known).
func (w *World) adoptDirect() {
	if m, ok := w.t.(interface{ Direct() transport }); ok {
		if d := m.Direct(); d != nil {
			w.useCalls(d)
		}
	}
}

// deliverOpened is deliver once w.t is set: a transport may deliver
// before open returns it, and answering needs it. Waiting is only
// possible in that first moment; afterwards it is one atomic load.
func (w *World) deliverOpened(peer int, h frame.Header, payload []byte) {
	w.awaitOpen()
	w.deliver(peer, h, payload)
}

// deliverRunOpened is deliverRun once w.t is set, as deliverOpened.
func (w *World) deliverRunOpened(peer int, h frame.Header, payloads [][]byte) {
	w.awaitOpen()
	w.deliverRun(peer, h, payloads)
}

// deliverEagerOpened is deliverEager once w.t is set, as deliverOpened.
func (w *World) deliverEagerOpened(peer int, comm uint32, tag int32, payload []byte) {
	w.awaitOpen()
	w.deliverEager(peer, comm, tag, payload)
}

// lostOpened is lost once w.t is set, as deliverOpened.
func (w *World) lostOpened(peer int, err error) {
	w.awaitOpen()
	w.lost(peer, err)
}

func (w *World) awaitOpen() {
	if !w.isOpen.Load() {
		<-w.opened
	}
}

// newWorld builds the world's state, everything but the transport.
func newWorld(cfg Config) *World {
	w := &World{cfg: cfg, table: match.New[*msg, *Request](match.Config{Shards: cfg.MatchShards}), opened: make(chan struct{})}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	w.peers = make([]peer, cfg.Size)
	share := cfg.share()
	w.batch = max(1, share/4)
	for i := range w.peers {
		p := &w.peers[i]
		p.sends = make(map[uint64]*Request)
		p.recvs = make(map[uint64]*Request)
		p.credit.Store(share)
	}
	w.probes.init()
	return w
}

// Rank returns this world's rank.
func (w *World) Rank() int { return w.cfg.Rank }

// Size returns the number of ranks.
func (w *World) Size() int { return w.cfg.Size }

// Crowded reports whether this rank's machine runs more ranks of the
// world than it has CPUs, so that ranks take turns on them; hosts that
// share one kernel (network namespaces, containers) count as one machine.
// Join finds out; worlds made by package commtest are never crowded.
func (w *World) Crowded() bool { return w.crowded }

// Machine names the machine (the kernel) this rank runs on: ranks whose
// hosts share one kernel (network namespaces, containers) have the same
// Machine, ranks on different machines different ones. It is the
// machine's boot id where the system has one, else the rank's host key.
func (w *World) Machine() string {
	if r := w.cfg.Rank; r < len(w.hosts) {
		return machineOf(w.hosts[r])
	}
	return machineOf(hostKey())
}

// UnexpectedBytes returns the memory held by unexpected messages and
// announcements from other ranks, as charged against
// Config.UnexpectedBudget.
func (w *World) UnexpectedBytes() int64 { return w.unexpected.Load() }

// Close ends the world: every operation still waiting fails with
// ErrClosed (requests watch the world's context, which also reaches
// AnySource receives no peer sweep finds), later calls fail with
// ErrClosed, and the transport closes.
func (w *World) Close() error {
	var err error
	w.once.Do(func() {
		w.closed.Store(true)
		w.cancel()
		w.watch.close()
		err = w.t.Close()
		for i := range w.peers {
			w.dropPeer(i, ErrClosed)
		}
	})
	return err
}

// lost is the transport's report that peer is gone.
func (w *World) lost(peer int, err error) {
	if peer < 0 || peer >= len(w.peers) {
		return
	}
	w.dropPeer(peer, fmt.Errorf("%w: rank %d: %v", ErrPeerLost, peer, err))
}

// dropPeer fails everything waiting on peer with err. Marking the peer
// first means that an operation registered after this sweep sees the mark
// and fails itself.
func (w *World) dropPeer(i int, err error) {
	p := &w.peers[i]
	p.mu.Lock()
	if p.lost != nil {
		p.mu.Unlock()
		return
	}
	p.lost = err
	p.dead.Store(true)
	sends, recvs := p.sends, p.recvs
	p.sends, p.recvs = nil, nil
	p.mu.Unlock()
	for _, r := range sends {
		r.fail(err)
	}
	for _, r := range recvs {
		r.fail(err)
	}
	for _, r := range w.table.RemoveSource(commWorld, int32(i)) {
		r.fail(err)
	}
	w.countLost(i, err)
	w.probes.wake()
	w.links.wakePeer(i)
}

// peerErr returns why peer cannot be used, or nil.
func (w *World) peerErr(peer int) error {
	if w.closed.Load() {
		return ErrClosed
	}
	p := &w.peers[peer]
	if !p.dead.Load() {
		return nil
	}
	p.mu.Lock()
	err := p.lost
	p.mu.Unlock()
	return err
}

// route sends a frame to peer; frames to this rank go straight to deliver.
// The transport sets h.Source (comm goes by the peer a frame came from):
// setting it here too, just before h is copied on to the transport, made
// the copy wait for the store (store forwarding fails).
func (w *World) route(ctx context.Context, peer int, h frame.Header, payload []byte) error {
	if peer == w.cfg.Rank {
		h.Source = int32(w.cfg.Rank)
		w.deliver(peer, h, payload)
		return nil
	}
	if err := w.t.Send(ctx, peer, h, payload); err != nil {
		return w.sendErr(ctx, peer, err)
	}
	return nil
}

// routeQueued is route for a frame that may share a write with the frames
// sent around it, when the transport can queue.
func (w *World) routeQueued(ctx context.Context, peer int, h frame.Header, payload []byte) error {
	q := w.queue
	if q == nil || peer == w.cfg.Rank {
		return w.route(ctx, peer, h, payload)
	}
	if err := q.Queue(ctx, peer, h, payload); err != nil {
		return w.sendErr(ctx, peer, err)
	}
	return nil
}

// flushQueued writes the frames the transport holds back (flusher).
func (w *World) flushQueued() {
	if w.flush != nil {
		w.flush.Flush()
	}
}

// sendErr classifies a transport failure.
func (w *World) sendErr(ctx context.Context, peer int, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if perr := w.peerErr(peer); perr != nil {
		return perr
	}
	return fmt.Errorf("%w: send to rank %d: %v", ErrPeerLost, peer, err)
}
