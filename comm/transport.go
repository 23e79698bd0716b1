package comm

import (
	"context"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// flagAbort in a frame.Header's Flags says the sender gave up: on a Data
// frame the rendezvous transfer, on a links Eager frame its collectives
// (see Link). Transports define no flags and carry them unchanged.
const flagAbort uint8 = 1

// transport moves frames between this world and its peers.
//
// Concurrency contract: Send may be called by any number of goroutines at
// once. Frames that one goroutine sends to one peer, one call after the
// other, arrive in that order. When Send returns, the transport no longer
// refers to payload. A Send to a lost peer fails rather than waits.
type transport interface {
	// Send delivers h and payload to rank peer, or fails.
	Send(ctx context.Context, peer int, h frame.Header, payload []byte) error
	// Close releases the transport; peers see this rank as lost.
	Close() error
}

// poller is a transport whose arrived frames a waiting goroutine can read
// and deliver itself. Poll delivers what has arrived from peer (from every
// peer if peer is negative) without blocking and reports whether it
// delivered anything; it is safe for any number of goroutines and must not
// be called from Deliver. PollDone says the poller of peer is going to
// sleep, so the transport should watch peer itself again. A blocking call
// polls briefly before it sleeps (see Request.spin).
type poller interface {
	Poll(peer int) bool
	PollDone(peer int)
}

// untilPoller is a poller that can stop as soon as what its caller waits
// for has come: PollUntil is Poll, except that it returns right after a
// delivery that makes done.Done() true (done may be nil), leaving other
// arrived frames to the next call. A waiter then goes back to its caller
// without first looking for more, which over shared memory means reading
// the cache line the sender is about to write.
type untilPoller interface {
	PollUntil(peer int, done interface{ Done() bool }) bool
}

// puller is a transport through which a peer can read this rank's memory
// directly, and this rank a peer's (one copy, by the kernel, with no
// pointer dereferenced across processes). A rendezvous send offers its
// buffer's address to a peer that can pull it, and the receive pulls the
// data straight into its own buffer (offer).
//
// PullableBy reports whether peer can pull from this rank, so that a
// sender may offer it a buffer. Pull copies len(dst) bytes at addr in
// peer's memory, an address peer offered, into dst; it may take a while,
// so it is never called from Deliver. On any error the receive falls back
// to asking for the data. Both are safe for any number of goroutines.
type puller interface {
	PullableBy(peer int) bool
	Pull(peer int, addr uint64, dst []byte) error
}

// queuer is a transport that can also queue a frame for a background
// writer that combines it with others, rather than write it at once. Queue
// keeps Send's contract, order between the two included; Isend uses it, so
// that a window of small messages leaves in few system calls.
type queuer interface {
	Queue(ctx context.Context, peer int, h frame.Header, payload []byte) error
}

// eagerSender is a transport with calls for the commonest frame, an eager
// message: SendEager and QueueEager are Send and Queue of
// Header{Kind: Eager, Comm: comm, Tag: tag, Aux: len(payload)}, without a
// Header passed down. A Header built field by field and then copied whole
// through the layers makes each copy wait for the stores (store
// forwarding fails); the eager send paths take this way where the
// transport offers it.
type eagerSender interface {
	SendEager(ctx context.Context, peer int, comm uint32, tag int32, payload []byte) error
	QueueEager(ctx context.Context, peer int, comm uint32, tag int32, payload []byte) error
}

// flusher is a queuer whose queued frames may wait for this rank to poll
// (shared memory bundles them). Flush writes them now; Waitall calls it
// before it looks at its requests, since a rank about to wait may be
// waiting for an answer to them.
type flusher interface {
	Flush()
}

// sleeper is a poller that can be passive: it then receives only inside
// Poll and PollUntil, in the caller's goroutine, and Sleep waits until
// something may have arrived (or ready reports true, ctx ends, or a while
// passes) for the caller to poll again. A serialized world (Config
// Serialized) runs only on a passive transport.
type sleeper interface {
	Passive() bool
	Sleep(ctx context.Context, ready func() bool)
}

// events is what a transport reports upwards. The world supplies it when
// the transport is opened, so the transport never sees a half-built world.
//
// Contract for transports: Deliver calls for one peer are serial and in
// that peer's send order; payload is valid only during the call. Lost is
// called at most once per peer, after the last Deliver from that peer.
// Neither callback may be called after Close returns. The callbacks do not
// block on the network, so a transport may call them from its reader.
type events struct {
	Deliver func(peer int, h frame.Header, payload []byte)
	Lost    func(peer int, err error)
	// Idle, called by a signaller's receiver before it sleeps, rings the
	// links' bells (Link.Signal). It may be nil and must not block.
	Idle func()
	// Opened, if set, is Deliver for a transport opened after the world's
	// own transport has been set (a mux's local transport, opened by
	// Route): such frames need not wait for the world to open, so this
	// skips the check Deliver makes. It may be nil.
	Opened func(peer int, h frame.Header, payload []byte)
	// OpenedEager, if set, is DeliverEager for such a transport, as
	// Opened is Deliver.
	OpenedEager func(peer int, comm uint32, tag int32, payload []byte)
	// DeliverRun, which a transport may call instead of Deliver for two
	// or more eager frames from one peer that arrived together with the
	// same header but for their lengths (h is the first's; each frame's
	// Aux is its length), delivers them as Deliver would, one after the
	// other, in fewer steps. It may be nil; the rules are Deliver's.
	DeliverRun func(peer int, h frame.Header, payloads [][]byte)
	// DeliverEager, which a transport may call instead of Deliver for an
	// eager frame without flags, is Deliver(peer, Header{Kind: Eager,
	// Comm: comm, Tag: tag, Aux: len(payload)}, payload) without the
	// Header, which the callee's layers would otherwise copy whole and
	// wait for (store forwarding fails). It may be nil; the rules are
	// Deliver's.
	DeliverEager func(peer int, comm uint32, tag int32, payload []byte)
}

// opener creates a transport wired to a world's events.
type opener func(ev events) (transport, error)
