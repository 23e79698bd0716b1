package comm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// defaultRouteTimeout is how long a mux's Send waits for Route.
const defaultRouteTimeout = time.Minute

// errNoRoutes is returned by Sends that gave up waiting for Route.
var errNoRoutes = errors.New("comm: mux: no routes (Route was not called)")

// muxConfig describes a mux.
type muxConfig struct {
	// Rank is this world's rank in [0, Size).
	Rank int
	// Size is the number of ranks.
	Size int
	// Remote opens the transport to ranks on other hosts (TCP). It is
	// numbered like the world.
	Remote opener
	// Local returns the opener of the transport to the ranks on this
	// rank's host (SHM), which numbers them among themselves: rank is this
	// rank's index among them and size their count. Nil means every rank
	// goes over Remote.
	Local func(rank, size int) opener
	// RouteTimeout bounds how long a Send waits for Route; zero means
	// defaultRouteTimeout.
	RouteTimeout time.Duration
}

// mux is a transport that carries the frames of the ranks on this rank's
// host over one transport (shared memory) and of the others over another
// (TCP), each peer always over the same one, and merges what both deliver.
// Join builds one by default.
//
// Use: newMux, openWorld(cfg, m.Open) — which opens Remote — then Route with
// every rank's host, which opens Local. Sends wait for Route (a bootstrap
// may deliver, and so make the world answer, before it is done).
//
// Concurrency contract: Send may be called by any number of goroutines at
// once, and keeps each transport's order per sending goroutine and peer,
// since a peer's frames all take one transport. Open and Route are called
// once each, in that order, by one goroutine; Close at any time. Lost is
// passed up once per peer, from whichever transport notices first.
type mux struct {
	cfg    muxConfig
	ev     events
	remote transport
	// remoteQ, remoteF and remoteP are remote as a queuer, a flusher and
	// a poller, or nil: looked up once in Open.
	remoteQ queuer
	remoteF flusher
	remoteP poller
	routes  atomic.Pointer[routes] // nil until Route
	ready   chan struct{}          // closed by Route or Close
	lost    []atomic.Bool
	// pids are the ranks' process ids (0: unknown), set before Route and
	// read only once the routes are (mux.Reach).
	pids []int

	mu     sync.Mutex // guards closed and local against Route racing Close
	closed bool
	local  transport
}

// routes says which transport reaches each peer.
//
// Invariants: index[r] is r's number on local, or -1 when r is reached
// over remote; ranks[index[r]] == r; local is nil when no index is set.
type routes struct {
	index []int
	ranks []int
	local transport
	// pollers of remote and local, or nil: looked up once, as an
	// interface assertion per Poll costs more than an empty poll; remoteP
	// is nil too when every rank is reached locally.
	remoteP, localP poller
	// localU, localQ, localE and localF are local as an untilPoller, a
	// queuer, an eagerSender and a flusher, or nil.
	localU untilPoller
	localQ queuer
	localE eagerSender
	localF flusher
	// localS is local as a signaller, or nil.
	localS signaller
}

// newMux returns a mux for cfg, to be opened by openWorld(cfg, m.Open).
func newMux(cfg muxConfig) *mux {
	if cfg.RouteTimeout == 0 {
		cfg.RouteTimeout = defaultRouteTimeout
	}
	return &mux{cfg: cfg, ready: make(chan struct{}), lost: make([]atomic.Bool, cfg.Size)}
}

// Open is the mux's Opener: it opens Remote with ev.
func (m *mux) Open(ev events) (transport, error) {
	if m.cfg.Rank < 0 || m.cfg.Rank >= m.cfg.Size {
		return nil, fmt.Errorf("comm: mux: rank %d outside [0, %d)", m.cfg.Rank, m.cfg.Size)
	}
	m.ev = ev
	t, err := m.cfg.Remote(events{Deliver: ev.Deliver, Lost: m.peerLost})
	if err != nil {
		return nil, err
	}
	m.remote = t
	m.remoteQ, _ = t.(queuer)
	m.remoteF, _ = t.(flusher)
	m.remoteP, _ = t.(poller)
	return m, nil
}

// Route sends the ranks whose hosts[r] equals this rank's over Local and
// the others over Remote. hosts names every rank's host; only equality
// between names matters.
func (m *mux) Route(hosts []string) error {
	if len(hosts) != m.cfg.Size {
		return fmt.Errorf("comm: mux: %d host names for %d ranks", len(hosts), m.cfg.Size)
	}
	rt := sameHost(hosts, m.cfg.Rank)
	if len(rt.ranks) < 2 || m.cfg.Local == nil {
		rt = &routes{index: rt.index}
		for i := range rt.index {
			rt.index[i] = -1
		}
		return m.publish(rt)
	}
	open := m.cfg.Local(rt.index[m.cfg.Rank], len(rt.ranks))
	t, err := open(m.localEvents(rt.ranks))
	if err != nil {
		return fmt.Errorf("comm: mux: open local transport: %w", err)
	}
	rt.local = t
	m.expectPIDs(rt)
	return m.publish(rt)
}

// sameHost numbers the ranks on rank's host in rank order.
func sameHost(hosts []string, rank int) *routes {
	rt := &routes{index: make([]int, len(hosts))}
	for r, h := range hosts {
		rt.index[r] = -1
		if h == hosts[rank] {
			rt.index[r] = len(rt.ranks)
			rt.ranks = append(rt.ranks, r)
		}
	}
	return rt
}

// localEvents translates the local transport's numbering to the world's.
// The local transport is opened by Route, after the world's transport is
// set, so its frames go to the world's Opened when there is one.
func (m *mux) localEvents(ranks []int) events {
	deliver := m.ev.Deliver
	if m.ev.Opened != nil {
		deliver = m.ev.Opened
	}
	if m.allLocal(ranks) { // numbered alike: no translation
		eager := m.ev.DeliverEager
		if m.ev.OpenedEager != nil {
			eager = m.ev.OpenedEager
		}
		return events{Deliver: deliver, DeliverRun: m.ev.DeliverRun, DeliverEager: eager,
			Lost: m.peerLost, Idle: m.ev.Idle}
	}
	return events{
		Deliver: func(peer int, h frame.Header, payload []byte) {
			h.Source = int32(ranks[peer])
			deliver(ranks[peer], h, payload)
		},
		DeliverRun:   m.localRun(ranks),
		DeliverEager: m.localEager(ranks),
		Lost:         func(peer int, err error) { m.peerLost(ranks[peer], err) },
		Idle:         m.ev.Idle,
	}
}

// localEager is localEvents's DeliverEager, nil if the world has none.
func (m *mux) localEager(ranks []int) func(int, uint32, int32, []byte) {
	eager := m.ev.DeliverEager
	if eager == nil {
		return nil
	}
	return func(peer int, comm uint32, tag int32, payload []byte) {
		eager(ranks[peer], comm, tag, payload)
	}
}

// localRun is localEvents's DeliverRun, nil if the world has none.
func (m *mux) localRun(ranks []int) func(int, frame.Header, [][]byte) {
	run := m.ev.DeliverRun
	if run == nil {
		return nil
	}
	return func(peer int, h frame.Header, payloads [][]byte) {
		h.Source = int32(ranks[peer])
		run(ranks[peer], h, payloads)
	}
}

// publish installs rt, unless the mux closed meanwhile.
func (m *mux) publish(rt *routes) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		if rt.local != nil {
			rt.local.Close()
		}
		return ErrClosed
	}
	m.local = rt.local
	if slices.Contains(rt.index, -1) {
		rt.remoteP, _ = m.remote.(poller) // else nothing comes that way: no poll
	}
	rt.localP, _ = rt.local.(poller)
	rt.localU, _ = rt.local.(untilPoller)
	rt.localQ, _ = rt.local.(queuer)
	rt.localF, _ = rt.local.(flusher)
	rt.localE, _ = rt.local.(eagerSender)
	rt.localS, _ = rt.local.(signaller)
	m.routes.Store(rt)
	close(m.ready)
	return nil
}

// Direct returns the local transport when it reaches every rank, which it
// then numbers as the world does (Route numbers a host's ranks in rank
// order), so that the world may send and poll through it without the mux
// in between; nil before Route or when some rank is remote.
func (m *mux) Direct() transport {
	rt := m.routes.Load()
	if rt == nil || rt.local == nil || !m.allLocal(rt.ranks) {
		return nil
	}
	return rt.local
}

// allLocal reports whether ranks, the ranks on this host in rank order
// (sameHost), are every rank: the local transport then numbers them as
// the world does.
func (m *mux) allLocal(ranks []int) bool { return len(ranks) == m.cfg.Size }

// peerLost passes the first loss of each peer up.
func (m *mux) peerLost(peer int, err error) {
	if peer >= 0 && peer < len(m.lost) && m.lost[peer].CompareAndSwap(false, true) {
		m.ev.Lost(peer, err)
	}
}

// Send sends the frame over the transport that reaches peer.
func (m *mux) Send(ctx context.Context, peer int, h frame.Header, payload []byte) error {
	rt := m.routes.Load()
	if rt == nil {
		var err error
		if rt, err = m.waitRoutes(ctx); err != nil {
			return err
		}
	}
	if peer < 0 || peer >= len(rt.index) {
		return fmt.Errorf("comm: mux: no rank %d in a world of %d", peer, len(rt.index))
	}
	if i := rt.index[peer]; i >= 0 {
		return rt.local.Send(ctx, i, h, payload)
	}
	return m.remote.Send(ctx, peer, h, payload)
}

// waitRoutes waits for Route.
func (m *mux) waitRoutes(ctx context.Context) (*routes, error) {
	t := time.NewTimer(m.cfg.RouteTimeout)
	defer t.Stop()
	select {
	case <-m.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, errNoRoutes
	}
	if rt := m.routes.Load(); rt != nil {
		return rt, nil
	}
	return nil, ErrClosed
}

// Close closes both transports; peers see this rank as lost.
func (m *mux) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	local := m.local
	if m.routes.Load() == nil {
		close(m.ready)
	}
	m.mu.Unlock()
	var err error
	if local != nil {
		err = local.Close()
	}
	return errors.Join(err, m.remote.Close())
}

// Queue is Send for a frame the transport that reaches peer may combine
// with others in one write, when it can (queuer).
func (m *mux) Queue(ctx context.Context, peer int, h frame.Header, payload []byte) error {
	rt := m.routes.Load()
	if rt == nil || peer < 0 || peer >= len(rt.index) {
		return m.Send(ctx, peer, h, payload)
	}
	if i := rt.index[peer]; i >= 0 {
		if rt.localQ != nil {
			return rt.localQ.Queue(ctx, i, h, payload)
		}
		return rt.local.Send(ctx, i, h, payload)
	}
	if m.remoteQ != nil {
		return m.remoteQ.Queue(ctx, peer, h, payload)
	}
	return m.remote.Send(ctx, peer, h, payload)
}
